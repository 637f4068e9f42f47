/// An error from PostgreSQL or from talking to it.
///
/// Server errors carry the SQLSTATE code and PostgreSQL's own message, detail and constraint name
/// so a store can translate them (`23505` unique violation, `23503` foreign key, …). None of this
/// is meant for end users: the edges log it and answer with a generic message.
public struct PostgresError: Error, Sendable, CustomStringConvertible {
    /// Which part of the work failed.
    public enum Kind: Sendable, Equatable {
        /// The connection could not be opened.
        case connection
        /// The server refused a statement.
        case server
        /// The connection broke while a statement ran.
        case connectionLost
        /// No connection became free before the pool's checkout timeout.
        case poolTimeout
        /// The pool has been shut down.
        case poolClosed
        /// A value could not be decoded into the requested Swift type.
        case decoding
        /// A parameter cannot be sent (text holding a NUL character); nothing was sent.
        case parameter
    }

    public var kind: Kind
    /// The five-character SQLSTATE, for server errors.
    public var sqlState: String?
    public var message: String
    public var detail: String?
    public var hint: String?
    public var constraint: String?
    public var column: String?
    public var table: String?

    public init(
        kind: Kind,
        message: String,
        sqlState: String? = nil,
        detail: String? = nil,
        hint: String? = nil,
        constraint: String? = nil,
        column: String? = nil,
        table: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.detail = detail
        self.hint = hint
        self.constraint = constraint
        self.column = column
        self.table = table
    }

    /// What logs show: never `detail` or `hint`, which can quote a row's values (user input).
    public var description: String {
        var text = "PostgresError(\(kind)"
        if let sqlState { text += ", sqlstate \(sqlState)" }
        text += "): \(message)"
        if let constraint { text += " [constraint \(constraint)]" }
        return text
    }
}

extension PostgresError {
    /// Well-known SQLSTATE codes that callers branch on.
    public enum Code {
        public static let uniqueViolation = "23505"
        public static let foreignKeyViolation = "23503"
        public static let checkViolation = "23514"
        public static let notNullViolation = "23502"
        public static let insufficientPrivilege = "42501"
        public static let serializationFailure = "40001"
        public static let deadlockDetected = "40P01"
        public static let queryCanceled = "57014"
        public static let invalidTextRepresentation = "22P02"
    }
}
