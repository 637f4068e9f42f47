import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.ProgramService`: programs of the signed-in tenant.
public struct ProgramHandler: Spotter_V1_ProgramService.SimpleServiceProtocol {
    private let coaching: CoachingService

    public init(coaching: CoachingService) {
        self.coaching = coaching
    }

    public func createProgram(request: Spotter_V1_CreateProgramRequest, context: ServerContext) async throws
        -> Spotter_V1_Program
    {
        Spotter_V1_Program(
            try await coaching.createProgram(
                try RequestContext.principal(), id: request.programID, ProgramDraft(request.program)))
    }

    public func getProgram(request: Spotter_V1_GetProgramRequest, context: ServerContext) async throws
        -> Spotter_V1_Program
    {
        Spotter_V1_Program(try await coaching.program(try RequestContext.principal(), id: request.programID))
    }

    public func updateProgram(request: Spotter_V1_UpdateProgramRequest, context: ServerContext) async throws
        -> Spotter_V1_Program
    {
        Spotter_V1_Program(
            try await coaching.updateProgram(
                try RequestContext.principal(), id: request.programID, ProgramDraft(request.program),
                expectedVersion: request.hasExpectedVersion ? request.expectedVersion : nil))
    }

    public func deleteProgram(request: Spotter_V1_DeleteProgramRequest, context: ServerContext) async throws
        -> Spotter_V1_DeleteProgramResponse
    {
        try await coaching.deleteProgram(try RequestContext.principal(), id: request.programID)
        return Spotter_V1_DeleteProgramResponse()
    }

    public func listPrograms(request: Spotter_V1_ListProgramsRequest, context: ServerContext) async throws
        -> Spotter_V1_ListProgramsResponse
    {
        let programs = try await coaching.programs(try RequestContext.principal())
        return .with { $0.programs = programs.map(Spotter_V1_Program.init) }
    }
}
