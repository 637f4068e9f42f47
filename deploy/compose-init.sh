#!/bin/sh
# Runs once, when the compose PostgreSQL container initializes its data directory: deploy/roles.sql
# with the owner's and spotterd's passwords from compose.env.
set -eu
psql -v ON_ERROR_STOP=1 -U postgres -v owner_password="'${SPOTTER_OWNER_PASSWORD}'" \
    -v server_password="'${SPOTTER_SERVER_PASSWORD}'" -f /spotter/roles.sql
