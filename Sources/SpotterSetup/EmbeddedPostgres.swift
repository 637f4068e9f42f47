import Foundation
import Logging
import Synchronization

/// A private PostgreSQL cluster under a data directory, for running Spotter with no database
/// configured: created with `initdb` on first start, listening only on a unix socket inside the
/// data directory, and stopped by the last process using it (spotterd and spotterctl share it:
/// each holds a shared lock on `users.lock` while it uses the cluster, and the one that can turn
/// its lock exclusive when it is done is the last and stops the cluster).
///
/// PostgreSQL refuses to run as root, so as root the cluster belongs to the `postgres` system user
/// (or a `spotter` system user created for it) and its commands run through `runuser`.
public final class EmbeddedPostgres: Sendable {
    public let dataDirectory: URL
    private let binDirectory: String
    private let osUser: String?
    private let logger: Logger
    /// The open `users.lock` while this process uses the cluster.
    private let userLock = Mutex<Int32?>(nil)
    private static let superuser = "spotter"
    private static let database = "spotter"
    private static let port = 5432

    /// Names sort byte by byte (`C`), but letters are told apart and folded as Unicode says when the
    /// system has the `C.UTF-8` locale (glibc 2.35 and later build it in): under a plain `C`
    /// character type `lower()` and `ILIKE` fold only A–Z, so searching "épaules" would not find
    /// "Épaules", nor would "жим лёжа" clash with a custom "Жим лёжа".
    static var characterTypes: [String] {
        guard let locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil) else { return [] }
        freelocale(locale)
        return ["--lc-ctype=C.UTF-8"]
    }

    public init(dataDirectory: URL, binDirectory: String? = nil, logger: Logger) throws {
        self.dataDirectory = dataDirectory
        self.binDirectory = try binDirectory ?? Self.findBinDirectory()
        self.osUser = getuid() == 0 ? try Self.unprivilegedUser() : nil
        self.logger = logger
    }

    var clusterDirectory: URL { dataDirectory.appendingPathComponent("postgres") }
    var socketDirectory: URL { dataDirectory.appendingPathComponent("run") }
    var logFile: URL { dataDirectory.appendingPathComponent("postgres.log") }

    /// The connection string of the cluster's `spotter` database, as its superuser.
    public var connectionString: String { connectionString(user: Self.superuser) }

    /// The connection string of the cluster's `spotter` database, as `user`.
    public func connectionString(user: String) -> String {
        "host=\(socketDirectory.path) port=\(Self.port) user=\(user) dbname=\(Self.database)"
    }

    /// Whether the cluster is running now (perhaps started by another process).
    public var isRunning: Bool {
        (try? run("pg_ctl", ["-D", clusterDirectory.path, "status"])) != nil
    }

    /// Creates the cluster if needed, joins its users and starts it unless it runs already.
    /// Returns `true` when this call started it.
    @discardableResult
    public func start() throws -> Bool {
        try prepareDirectories()
        // One process at a time creates and starts the cluster.
        let startLock = try Self.lock(dataDirectory.appendingPathComponent("start.lock").path, LOCK_EX)
        defer { close(startLock) }
        if !FileManager.default.fileExists(atPath: clusterDirectory.appendingPathComponent("PG_VERSION").path) {
            logger.info("creating the embedded PostgreSQL cluster", metadata: ["path": "\(clusterDirectory.path)"])
            try run(
                "initdb",
                ["-D", clusterDirectory.path, "-U", Self.superuser, "--auth=trust", "-E", "UTF8", "--locale=C"]
                    + Self.characterTypes)
        }
        try userLock.withLock { held in
            if held == nil { held = try Self.lock(dataDirectory.appendingPathComponent("users.lock").path, LOCK_SH) }
        }
        if isRunning { return false }
        let options = "-c listen_addresses='' -c unix_socket_directories='\(socketDirectory.path)' -c port=\(Self.port)"
        try run("pg_ctl", ["-D", clusterDirectory.path, "-l", logFile.path, "-w", "-t", "60", "-o", options, "start"])
        try createDatabaseIfMissing()
        logger.info("embedded PostgreSQL started", metadata: ["socket": "\(socketDirectory.path)"])
        return true
    }

    /// Leaves the cluster; the last process to leave stops it. Returns `true` when it stopped it.
    @discardableResult
    public func release() throws -> Bool {
        guard
            let descriptor = userLock.withLock({ held -> Int32? in
                defer { held = nil }
                return held
            })
        else { return false }
        defer { close(descriptor) }
        // Turning the shared lock exclusive succeeds only when no other process holds it.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            logger.info("embedded PostgreSQL left running for another process")
            return false
        }
        try stop()
        return true
    }

    /// Stops the cluster (fast shutdown: running transactions roll back, committed data is kept).
    public func stop() throws {
        guard isRunning else { return }
        try run("pg_ctl", ["-D", clusterDirectory.path, "-m", "fast", "-w", "-t", "60", "stop"])
        logger.info("embedded PostgreSQL stopped")
    }

    /// Opens (creating) a lock file and takes a blocking `flock` on it.
    private static func lock(_ path: String, _ operation: Int32) throws -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw EmbeddedPostgresError(
                command: "open \(path)", status: errno, output: String(cString: strerror(errno)))
        }
        while flock(descriptor, operation) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                throw EmbeddedPostgresError(
                    command: "flock \(path)", status: errno, output: String(cString: strerror(errno)))
            }
        }
        return descriptor
    }

    private func createDatabaseIfMissing() throws {
        let psql = ["-h", socketDirectory.path, "-p", "\(Self.port)", "-U", Self.superuser, "-d", "postgres", "-tAc"]
        let exists = try run("psql", psql + ["SELECT 1 FROM pg_database WHERE datname = '\(Self.database)'"])
        if exists.trimmingWhitespacesAndNewlines() != "1" {
            try run("psql", psql + ["CREATE DATABASE \(Self.database)"])
        }
    }

    private func prepareDirectories() throws {
        let manager = FileManager.default
        try manager.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
        for directory in [clusterDirectory, socketDirectory] where !manager.fileExists(atPath: directory.path) {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            try manager.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path)
        }
        if let osUser {
            // The cluster's user must reach its files: own the cluster, the socket directory and the log.
            if !manager.fileExists(atPath: logFile.path) { _ = manager.createFile(atPath: logFile.path, contents: nil) }
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dataDirectory.path)
            for path in [clusterDirectory.path, socketDirectory.path, logFile.path] {
                try Self.execute("/bin/chown", ["-R", "\(osUser):\(osUser)", path])
            }
        }
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let path = binDirectory + "/" + tool
        let executable = FileManager.default.isExecutableFile(atPath: path) ? path : "/usr/bin/" + tool
        if let osUser {
            return try Self.execute("/usr/sbin/runuser", ["-u", osUser, "--", executable] + arguments)
        }
        return try Self.execute(executable, arguments)
    }

    /// Runs a program to completion; throws with its output when it fails.
    ///
    /// Uses `posix_spawn` and `waitpid` directly: Foundation's `Process` can miss the exit of a
    /// child whose own child (the postmaster) lives on. Output goes to a file, not a pipe, because
    /// `pg_ctl start` leaves the server holding it, so a pipe would never reach end-of-file.
    @discardableResult
    static func execute(_ executable: String, _ arguments: [String]) throws -> String {
        let outputPath = NSTemporaryDirectory() + "spotter-\(UUID().uuidString).out"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else {
            throw EmbeddedPostgresError(command: executable, status: 127, output: String(cString: strerror(spawned)))
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1, errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        // WIFEXITED / WEXITSTATUS, which Swift does not import.
        let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exitCode == 0 else {
            throw EmbeddedPostgresError(
                command: ([executable] + arguments).joined(separator: " "),
                status: exitCode,
                output: text
            )
        }
        return text
    }

    /// `postgres` when the system has it, else a `spotter` system user created now.
    private static func unprivilegedUser() throws -> String {
        for user in ["postgres", "spotter"] where (try? execute("/usr/bin/id", ["-u", user])) != nil {
            return user
        }
        try execute("/usr/sbin/useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", "spotter"])
        return "spotter"
    }

    /// The newest `/usr/lib/postgresql/N/bin`, else the directory of `initdb` on the PATH.
    private static func findBinDirectory() throws -> String {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? [])
            .compactMap(Int.init).sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
        where FileManager.default.isExecutableFile(atPath: "\(directory)/initdb") {
            return String(directory)
        }
        throw EmbeddedPostgresError(
            command: "initdb",
            status: 127,
            output: "PostgreSQL's server programs were not found; install postgresql or set SPOTTER_POSTGRES_BIN"
        )
    }
}

/// A PostgreSQL command of the embedded cluster failed.
public struct EmbeddedPostgresError: Error, CustomStringConvertible {
    public var command: String
    public var status: Int32
    public var output: String

    public var description: String { "\(command) exited with \(status): \(output)" }
}
