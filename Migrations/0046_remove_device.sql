-- SyncService/RemoveDevice: the owner forgets one of their devices (a lost or replaced phone). Its
-- stored push results go with it (sync_mutations' key cascades); the data it pushed stays.
GRANT DELETE ON sync_devices TO spotter_app;
