#!/usr/bin/env bash
# Starts the machine's PostgreSQL 15 (installed, not running, on these machines) and exports
# STILLREEL_TEST_PG_URL for the integration tests. Sourced by scripts/test.sh; idempotent.
pg_version=$(ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -1)
if [ -z "$pg_version" ]; then
  echo "postgres: not installed (scripts/setup.sh installs it)" >&2
  return 1 2>/dev/null || exit 1
fi
if ! pg_lsclusters -h | awk '{print $4}' | grep -q online; then
  pg_ctlcluster --skip-systemctl-redirect "$pg_version" main start
fi
for _ in $(seq 1 30); do
  su postgres -c "psql -qAtc 'select 1'" >/dev/null 2>&1 && break
  sleep 0.5
done
su postgres -c "psql -qAt" <<'SQL' >/dev/null
DO $$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'stillreel') THEN
    CREATE ROLE stillreel LOGIN CREATEDB PASSWORD 'stillreel';
  END IF;
END $$;
SQL
export STILLREEL_TEST_PG_URL="postgres://stillreel:stillreel@127.0.0.1:5432/postgres"
echo "postgres: ready at $STILLREEL_TEST_PG_URL (tests create their own databases)"
