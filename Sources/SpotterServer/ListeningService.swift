import GRPCCore
import NIOCore
import ServiceLifecycle

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A service that listens on an address (gRPC, the portal, metrics), run so that an address already
/// in use stops spotterd with an error that names the listener, the address and the setting that
/// moves it, instead of NIO's `bind(descriptor:ptr:bytes:): Address already in use`.
struct ListeningService: Service {
    let service: any Service
    let listener: String
    let host: String
    let port: Int
    let setting: String

    func run() async throws {
        do {
            try await service.run()
        } catch let error where Self.addressInUse(error) {
            throw AddressInUse(listener: listener, address: "\(host):\(port)", setting: setting)
        }
    }

    /// Whether `error`, or the error it was caused by, is a bind to an address already in use.
    static func addressInUse(_ error: any Error) -> Bool {
        switch error {
        case let error as IOError: error.errnoCode == EADDRINUSE
        case let error as RuntimeError: error.cause.map(addressInUse) ?? false
        case let error as RPCError: error.cause.map(addressInUse) ?? false
        default: false
        }
    }
}

/// spotterd could not listen: another process (often another spotterd) holds the address.
public struct AddressInUse: Error, CustomStringConvertible {
    public var listener: String
    public var address: String
    public var setting: String

    public var description: String {
        "\(listener) cannot listen on \(address): the address is already in use (another spotterd?); "
            + "\(setting) moves it"
    }
}
