#!/usr/bin/env bash
# Stop what nautobot_up.sh started (the web server, Redis, PostgreSQL); keeps the data for next time.
HOME_DIR=${DCLAYOUT_NB_HOME:-/tmp/dclayout-nautobot}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
[ -f "$HOME_DIR/web.pid" ] && kill "$(cat "$HOME_DIR/web.pid")" 2>/dev/null && rm -f "$HOME_DIR/web.pid"
[ -f "$HOME_DIR/redis.pid" ] && kill "$(cat "$HOME_DIR/redis.pid")" 2>/dev/null
AS=(); if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); fi
"${AS[@]}" "$PG_BIN/pg_ctl" -D "$HOME_DIR/pg" stop -m fast >/dev/null 2>&1 || true
