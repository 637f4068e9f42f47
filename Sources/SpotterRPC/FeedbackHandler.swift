import Foundation
import GRPCCore
import SpotterCore
import SpotterProto

/// `spotter.v1.FeedbackService`: filing and reading one's own feedback.
public struct FeedbackHandler: Spotter_V1_FeedbackService.SimpleServiceProtocol {
    private let feedback: FeedbackService

    public init(feedback: FeedbackService) {
        self.feedback = feedback
    }

    public func submitFeedback(request: Spotter_V1_SubmitFeedbackRequest, context: ServerContext) async throws
        -> Spotter_V1_Feedback
    {
        let kind: FeedbackKind? =
            switch request.kind {
            case .feedback: .feedback
            case .bug: .bug
            default: nil
            }
        let filed = try await feedback.submit(
            try RequestContext.principal(),
            kind: kind,
            subject: request.subject,
            body: request.body,
            appVersion: request.appVersion
        )
        return Spotter_V1_Feedback(filed)
    }

    public func listFeedback(request: Spotter_V1_ListFeedbackRequest, context: ServerContext) async throws
        -> Spotter_V1_ListFeedbackResponse
    {
        let items = try await feedback.feedback(try RequestContext.principal())
        return .with { $0.feedback = items.map(Spotter_V1_Feedback.init) }
    }
}

extension Spotter_V1_Feedback {
    init(_ feedback: Feedback) {
        self.init()
        feedbackID = feedback.id.lowercasedString
        kind = feedback.kind == .bug ? .bug : .feedback
        subject = feedback.subject
        body = feedback.body
        appVersion = feedback.appVersion
        resolved = feedback.resolvedAt != nil
        resolution = feedback.resolution ?? ""
        createdAt = Spotter_V1_Timestamp(feedback.createdAt)
        if let resolvedAt = feedback.resolvedAt { self.resolvedAt = Spotter_V1_Timestamp(resolvedAt) }
    }
}
