#!/bin/sh
# Runs once, when the compose PostgreSQL container initializes its data directory: deploy/roles.sql
# with the owner password from compose.env.
set -eu
psql -v ON_ERROR_STOP=1 -U postgres -v owner_password="'${SPOTTER_OWNER_PASSWORD}'" -f /spotter/roles.sql
