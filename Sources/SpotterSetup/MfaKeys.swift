import Foundation
import SpotterCore

/// Where the keys that seal two-factor secrets at rest come from. Entries are `id:base64` (32
/// bytes), separated by commas or new lines; the first seals new secrets, every one opens.
public enum MfaKeys: Sendable, Equatable {
    /// `SPOTTER_MFA_KEYS`: the entries themselves.
    case inline(String)
    /// `SPOTTER_MFA_KEYS_FILE`: a file holding them.
    case file(String)
    /// Neither set: `<data dir>/mfa-keys`, created with one new key on first start (mode 0600).
    /// Fine for one machine; replicas must share their keys through one of the settings above.
    case generated

    /// The keyring, creating the generated file when it is missing.
    public func keyring(dataDirectory: URL) throws -> MfaKeyring {
        switch self {
        case .inline(let text):
            return try MfaKeyring(parsing: text, source: "SPOTTER_MFA_KEYS")
        case .file(let path):
            return try MfaKeyring(parsing: try Self.read(path), source: "SPOTTER_MFA_KEYS_FILE (\(path))")
        case .generated:
            let url = dataDirectory.appendingPathComponent("mfa-keys")
            if !FileManager.default.fileExists(atPath: url.path) {
                try FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true)
                let entry = MfaKeyring.newEntry(id: "k1") + "\n"
                guard
                    FileManager.default.createFile(
                        atPath: url.path, contents: Data(entry.utf8), attributes: [.posixPermissions: 0o600])
                else { throw ConfigurationProblem(url.path, "cannot be created") }
            }
            return try MfaKeyring(parsing: try Self.read(url.path), source: url.path)
        }
    }

    private static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationProblem(path, "cannot be read: \(error.localizedDescription)")
        }
    }
}
