import Foundation
import GRPCCore
import SpotterProto
import SwiftProtobuf

/// What server reflection knows: every file descriptor of the generated code
/// (`SpotterFileDescriptors`), by file name and by the fully-qualified symbols each declares.
public struct ReflectionIndex: Sendable {
    /// A reflection answer, whichever version of the protocol asked.
    enum Answer: Equatable {
        /// Serialized `FileDescriptorProto`s: the file asked for first, then what it imports.
        case files([Data])
        case services([String])
        case error(code: Int32, message: String)
    }

    private let files: [String: Google_Protobuf_FileDescriptorProto]
    private let serialized: [String: Data]
    private let fileBySymbol: [String: String]
    /// The services answered to `list_services`, sorted.
    let services: [String]

    /// The index of `base64Set` (a serialized `FileDescriptorSet`), listing those of its services
    /// that `registered` names.
    public init(base64Set: String = SpotterFileDescriptors.base64Set, registered: Set<String>) throws {
        guard let bytes = Data(base64Encoded: base64Set) else {
            throw RPCError(code: .internalError, message: "the file descriptor set is not base64")
        }
        let set = try Google_Protobuf_FileDescriptorSet(serializedBytes: bytes)
        var files: [String: Google_Protobuf_FileDescriptorProto] = [:]
        var serialized: [String: Data] = [:]
        var fileBySymbol: [String: String] = [:]
        var services: [String] = []
        for file in set.file {
            files[file.name] = file
            serialized[file.name] = try file.serializedData()
            let prefix = file.package.isEmpty ? "" : file.package + "."
            func add(_ message: Google_Protobuf_DescriptorProto, under scope: String) {
                let name = scope + message.name
                fileBySymbol[name] = file.name
                for nested in message.nestedType { add(nested, under: name + ".") }
                for nested in message.enumType { fileBySymbol[name + "." + nested.name] = file.name }
            }
            for message in file.messageType { add(message, under: prefix) }
            for type in file.enumType { fileBySymbol[prefix + type.name] = file.name }
            for service in file.service {
                let name = prefix + service.name
                fileBySymbol[name] = file.name
                for method in service.method { fileBySymbol[name + "." + method.name] = file.name }
                if registered.contains(name) { services.append(name) }
            }
        }
        self.files = files
        self.serialized = serialized
        self.fileBySymbol = fileBySymbol
        self.services = services.sorted()
    }

    /// The answer to one reflection request, given as its oneof case.
    func answer(fileByName name: String) -> Answer {
        guard files[name] != nil else { return .error(code: 5, message: "file not found: \(name)") }
        return .files(withImports(name))
    }

    func answer(fileContainingSymbol symbol: String) -> Answer {
        let trimmed = symbol.hasPrefix(".") ? String(symbol.dropFirst()) : symbol
        guard let file = fileBySymbol[trimmed] else { return .error(code: 5, message: "symbol not found: \(symbol)") }
        return .files(withImports(file))
    }

    /// `name` and, depth first, every file it imports, each once.
    private func withImports(_ name: String) -> [Data] {
        var seen: Set<String> = []
        var order: [String] = []
        func visit(_ file: String) {
            guard seen.insert(file).inserted, let descriptor = files[file] else { return }
            order.append(file)
            for dependency in descriptor.dependency { visit(dependency) }
        }
        visit(name)
        return order.compactMap { serialized[$0] }
    }

    static let noExtensions = Answer.error(code: 5, message: "Spotter's protos declare no extensions")
}

/// `grpc.reflection.v1.ServerReflection`: lets grpcurl, grpcui and Postman list the services and
/// describe and call their methods without the `.proto` files.
public struct ReflectionHandler: Grpc_Reflection_V1_ServerReflection.ServiceProtocol {
    private let index: ReflectionIndex

    public init(index: ReflectionIndex) {
        self.index = index
    }

    public func serverReflectionInfo(
        request: StreamingServerRequest<Grpc_Reflection_V1_ServerReflectionRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Grpc_Reflection_V1_ServerReflectionResponse> {
        StreamingServerResponse { writer in
            for try await question in request.messages {
                let answer: ReflectionIndex.Answer =
                    switch question.messageRequest {
                    case .fileByFilename(let name): index.answer(fileByName: name)
                    case .fileContainingSymbol(let symbol): index.answer(fileContainingSymbol: symbol)
                    case .listServices: .services(index.services)
                    case .fileContainingExtension, .allExtensionNumbersOfType, nil: ReflectionIndex.noExtensions
                    }
                try await writer.write(
                    .with { response in
                        response.validHost = question.host
                        response.originalRequest = question
                        switch answer {
                        case .files(let files):
                            response.fileDescriptorResponse = .with { $0.fileDescriptorProto = files }
                        case .services(let names):
                            response.listServicesResponse = .with {
                                $0.service = names.map { name in .with { $0.name = name } }
                            }
                        case .error(let code, let message):
                            response.errorResponse = .with {
                                $0.errorCode = code
                                $0.errorMessage = message
                            }
                        }
                    })
            }
            return [:]
        }
    }
}

/// The same service under its earlier name, `grpc.reflection.v1alpha.ServerReflection`, which
/// older grpcurl and grpcui releases ask for first.
public struct ReflectionAlphaHandler: Grpc_Reflection_V1alpha_ServerReflection.ServiceProtocol {
    private let v1: ReflectionHandler

    public init(index: ReflectionIndex) {
        v1 = ReflectionHandler(index: index)
    }

    public func serverReflectionInfo(
        request: StreamingServerRequest<Grpc_Reflection_V1alpha_ServerReflectionRequest>, context: ServerContext
    ) async throws -> StreamingServerResponse<Grpc_Reflection_V1alpha_ServerReflectionResponse> {
        // The two versions have the same messages field for field: convert through the wire format.
        let questions = request.messages.map {
            try Grpc_Reflection_V1_ServerReflectionRequest(serializedBytes: try $0.serializedBytes() as [UInt8])
        }
        let answers = try await v1.serverReflectionInfo(
            request: StreamingServerRequest(
                metadata: request.metadata, messages: RPCAsyncSequence(wrapping: questions)),
            context: context)
        return StreamingServerResponse { writer in
            guard case .success(let contents) = answers.accepted else { return [:] }
            return try await contents.producer(
                RPCWriter(
                    wrapping: TransformingWriter(base: writer) {
                        try Grpc_Reflection_V1alpha_ServerReflectionResponse(
                            serializedBytes: try $0.serializedBytes() as [UInt8])
                    }))
        }
    }
}

/// A writer of `Input` that writes each message converted to `Output` to `base`.
private struct TransformingWriter<Input: Sendable, Output: Sendable>: RPCWriterProtocol {
    let base: RPCWriter<Output>
    let transform: @Sendable (Input) throws -> Output

    func write(_ element: Input) async throws {
        try await base.write(try transform(element))
    }

    func write(contentsOf elements: some Sequence<Input>) async throws {
        for element in elements { try await write(element) }
    }
}
