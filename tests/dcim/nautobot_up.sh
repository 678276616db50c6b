#!/usr/bin/env bash
# Start a throw-away Nautobot on 127.0.0.1 for tests/dcim/test_nautobot_push.py, and print the
# environment that test needs. Nautobot installs from PyPI on Python 3.11; PostgreSQL and Redis come
# from Debian (apt-get install postgresql redis-server). It takes a few minutes the first time (the
# database migrations), so the default test run does not start it: run this, then
#   eval "$(tests/dcim/nautobot_up.sh)" && .venv/bin/python -m pytest tests/dcim
# and tests/dcim/nautobot_down.sh to stop it. Everything lives in $DCLAYOUT_NB_HOME.
set -euo pipefail
HOME_DIR=${DCLAYOUT_NB_HOME:-/tmp/dclayout-nautobot}
VENV=${DCLAYOUT_NB_VENV:-$HOME_DIR/venv}
PG_PORT=${DCLAYOUT_NB_PG_PORT:-5439}
REDIS_PORT=${DCLAYOUT_NB_REDIS_PORT:-6389}
WEB_PORT=${DCLAYOUT_NB_PORT:-8089}
PG_BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
mkdir -p "$HOME_DIR"
chmod 755 "$HOME_DIR"
log() { echo "nautobot_up: $*" >&2; }

if [ ! -x "$VENV/bin/nautobot-server" ]; then
    log "installing nautobot into $VENV"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q "nautobot>=2.4" >&2
fi

# PostgreSQL, as the postgres user when run as root (initdb refuses root)
AS=()
if [ "$(id -u)" = 0 ]; then AS=(runuser -u postgres --); fi
PGDATA=$HOME_DIR/pg
if [ ! -d "$PGDATA" ]; then
    mkdir -p "$PGDATA" && chown "$( [ ${#AS[@]} -gt 0 ] && echo postgres || id -un )" "$PGDATA"
    "${AS[@]}" "$PG_BIN/initdb" -D "$PGDATA" -U postgres --auth=trust >/dev/null
fi
if ! "${AS[@]}" "$PG_BIN/pg_ctl" -D "$PGDATA" status >/dev/null 2>&1; then
    "${AS[@]}" "$PG_BIN/pg_ctl" -D "$PGDATA" -l "$PGDATA/log" -w \
        -o "-p $PG_PORT -k $PGDATA -c listen_addresses=127.0.0.1" start >&2
fi
psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -tc "select 1 from pg_database where datname='nautobot'" \
    | grep -q 1 || psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -c "create database nautobot" >&2

# Redis
if ! redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1; then
    redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --daemonize yes --save "" \
        --dir "$HOME_DIR" --pidfile "$HOME_DIR/redis.pid" >&2
fi

export NAUTOBOT_ROOT=$HOME_DIR/root
export NAUTOBOT_DB_HOST=127.0.0.1 NAUTOBOT_DB_PORT=$PG_PORT NAUTOBOT_DB_NAME=nautobot
export NAUTOBOT_DB_USER=postgres NAUTOBOT_DB_PASSWORD=unused
export NAUTOBOT_REDIS_HOST=127.0.0.1 NAUTOBOT_REDIS_PORT=$REDIS_PORT
export NAUTOBOT_SECRET_KEY=dclayout-test-only-not-a-secret-0123456789abcdef NAUTOBOT_ALLOWED_HOSTS='*'
export NAUTOBOT_DEBUG=False
if [ ! -f "$NAUTOBOT_ROOT/nautobot_config.py" ]; then
    mkdir -p "$NAUTOBOT_ROOT"
    "$VENV/bin/nautobot-server" init --disable-installation-metrics >&2 </dev/null || \
        "$VENV/bin/nautobot-server" init >&2 </dev/null
fi
log "migrating (minutes the first time)"
"$VENV/bin/nautobot-server" migrate >"$HOME_DIR/migrate.log" 2>&1
TOKEN=0123456789abcdef0123456789abcdef01234567
"$VENV/bin/nautobot-server" nbshell >"$HOME_DIR/token.log" 2>&1 <<PY
from django.contrib.auth import get_user_model
from nautobot.users.models import Token
User = get_user_model()
u, _ = User.objects.get_or_create(username="dclayout", defaults={"is_superuser": True, "is_staff": True})
u.is_superuser = True; u.is_staff = True; u.save()
Token.objects.get_or_create(user=u, key="$TOKEN")
PY
if ! curl -fs "http://127.0.0.1:$WEB_PORT/api/" -H "Authorization: Token $TOKEN" >/dev/null 2>&1; then
    nohup "$VENV/bin/nautobot-server" runserver "127.0.0.1:$WEB_PORT" --noreload \
        >"$HOME_DIR/web.log" 2>&1 &
    echo $! >"$HOME_DIR/web.pid"
    for _ in $(seq 1 120); do
        curl -fs "http://127.0.0.1:$WEB_PORT/api/" -H "Authorization: Token $TOKEN" >/dev/null 2>&1 && break
        sleep 1
    done
fi
curl -fs "http://127.0.0.1:$WEB_PORT/api/" -H "Authorization: Token $TOKEN" >/dev/null
log "up at http://127.0.0.1:$WEB_PORT"
echo "export DCLAYOUT_NAUTOBOT_URL=http://127.0.0.1:$WEB_PORT DCLAYOUT_DCIM_TOKEN=$TOKEN"
