import Crypto
import Foundation
import SwiftASN1
import X509

/// A self-signed certificate for `localhost` and `127.0.0.1`, created once under the data
/// directory when no certificate is configured, so development still speaks TLS.
public enum DevelopmentCertificate {
    /// The PEM certificate and key paths, creating them when missing.
    public static func ensure(in directory: URL) throws -> (certificate: String, key: String) {
        let certificatePath = directory.appendingPathComponent("tls/dev-cert.pem").path
        let keyPath = directory.appendingPathComponent("tls/dev-key.pem").path
        let manager = FileManager.default
        if manager.fileExists(atPath: certificatePath), manager.fileExists(atPath: keyPath) {
            return (certificatePath, keyPath)
        }
        let (certificatePEM, keyPEM) = try make(validFor: 365 * 24 * 3600)
        try manager.createDirectory(
            at: directory.appendingPathComponent("tls"),
            withIntermediateDirectories: true
        )
        _ = manager.createFile(atPath: keyPath, contents: Data(keyPEM.utf8), attributes: [.posixPermissions: 0o600])
        _ = manager.createFile(atPath: certificatePath, contents: Data(certificatePEM.utf8))
        return (certificatePath, keyPath)
    }

    /// A new self-signed P-256 certificate and its key, both PEM.
    public static func make(validFor lifetime: TimeInterval) throws -> (certificate: String, key: String) {
        let key = P256.Signing.PrivateKey()
        let name = try DistinguishedName {
            CommonName("Spotter development certificate")
            OrganizationName("Spotter")
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600),
            notValidAfter: now.addingTimeInterval(lifetime),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                    .ipAddress(ASN1OctetString(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1]))),
                ])
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return (try certificate.serializeAsPEM().pemString, key.pemRepresentation)
    }
}
