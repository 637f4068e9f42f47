-- Run once as a PostgreSQL superuser on a production server, before the first `spotterctl migrate`.
-- Creates the owner login that migrations run as and the NOLOGIN roles the migrations grant to and
-- give functions to (they would create them themselves, but only with CREATEROLE). Choose your own
-- passwords.
--
--   psql -v owner_password="'…'" -v server_password="'…'" -f deploy/roles.sql

CREATE ROLE spotter_app NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE spotter_admin NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE spotter_auth NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE spotter_mailer NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE spotter_sync NOLOGIN NOSUPERUSER NOBYPASSRLS;
CREATE ROLE spotter_retention NOLOGIN NOSUPERUSER NOBYPASSRLS;

-- The login both spotterd and spotterctl use. It owns the schema and runs migrations; for request
-- work spotterd switches to spotter_app (SET ROLE), and spotterctl to spotter_admin, so row-level
-- security applies to all ordinary work.
CREATE ROLE spotter_owner LOGIN PASSWORD :owner_password;
GRANT spotter_app, spotter_admin, spotter_auth, spotter_mailer, spotter_sync, spotter_retention TO spotter_owner;

-- The login spotterd works as once migrations are done (SPOTTER_SERVER_DATABASE_URL): it owns
-- nothing, inherits nothing and may only switch to the roles requests and the mailer work as, so a
-- statement injected into a request that resets or sets its role can do nothing (as the owner it
-- could leave row-level security, or pose as spotterctl's spotter_admin).
CREATE ROLE spotter_server LOGIN NOINHERIT PASSWORD :server_password;
GRANT spotter_app, spotter_mailer TO spotter_server;

CREATE DATABASE spotter OWNER spotter_owner;
\connect spotter
ALTER SCHEMA public OWNER TO spotter_owner;
