// The settings, the database set-up and the embedded PostgreSQL live in SpotterSetup, which
// spotterctl uses without the server; everything that builds the server sees them too.
@_exported import SpotterSetup
