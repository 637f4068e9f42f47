import Foundation
import SpotterCore
import SpotterProto

extension Spotter_V1_CoachLink {
    init(_ link: CoachLink) {
        self.init()
        linkID = link.id.description
        lifterID = link.lifterID.description
        lifterName = link.lifterName
        coachID = link.coachID.description
        coachName = link.coachName
        status = link.status.proto()
        requestedBy = link.requestedBy.rawValue
        scopes = link.scopes.sorted().map(\.rawValue)
        createdAt = Spotter_V1_Timestamp(link.createdAt)
        if let respondedAt = link.respondedAt { self.respondedAt = Spotter_V1_Timestamp(respondedAt) }
        if let endedAt = link.endedAt { self.endedAt = Spotter_V1_Timestamp(endedAt) }
        endedBy = link.endedBy?.rawValue ?? ""
        paused = link.paused
    }
}

extension Spotter_V1_Invite {
    init(_ invite: CoachInvite) {
        self.init()
        inviteID = invite.id.lowercasedString
        code = invite.code ?? ""
        link = invite.code.map { "spotter://invite/\($0)" } ?? ""
        note = invite.note
        createdAt = Spotter_V1_Timestamp(invite.createdAt)
        expiresAt = Spotter_V1_Timestamp(invite.expiresAt)
        if let usedAt = invite.usedAt { self.usedAt = Spotter_V1_Timestamp(usedAt) }
        usedBy = invite.usedBy?.description ?? ""
    }
}

extension Spotter_V1_Assignment {
    init(_ assignment: Assignment) {
        self.init()
        assignmentID = assignment.id.lowercasedString
        coachID = assignment.coachID.description
        coachName = assignment.coachName
        clientID = assignment.lifterID.description
        switch assignment.item {
        case .template(let id): templateID = id.description
        case .program(let id): programID = id.description
        }
        name = assignment.name
        version = assignment.version
        note = assignment.note
        createdAt = Spotter_V1_Timestamp(assignment.createdAt)
    }
}

extension Spotter_V1_Program {
    init(_ program: Program) {
        self.init()
        programID = program.id.description
        ownerID = program.ownerID.description
        name = program.content.name
        notes = program.content.notes
        weeks = Int32(program.content.weeks)
        days = program.content.days.map { day in
            .with {
                $0.week = Int32(day.week)
                $0.weekday = Int32(day.weekday)
                $0.templateID = day.templateID.description
                $0.templateName = program.templateNames[day.templateID] ?? ""
            }
        }
        version = program.version
        createdAt = Spotter_V1_Timestamp(program.createdAt)
        updatedAt = Spotter_V1_Timestamp(program.updatedAt)
    }
}

extension ProgramDraft {
    init(_ input: Spotter_V1_ProgramInput) {
        self.init(
            name: input.name,
            notes: input.notes,
            weeks: Int(input.weeks),
            days: input.days.map { Day(week: Int($0.week), weekday: Int($0.weekday), templateID: $0.templateID) }
        )
    }
}

extension Spotter_V1_FollowedProgram {
    init(_ follow: ProgramFollow) {
        self.init()
        program = Spotter_V1_Program(follow.program)
        startedOn = follow.startedOn
        if let offer = follow.publication {
            publication = .with {
                $0.publicationID = offer.publicationID.description
                $0.version = Int32(offer.version)
                $0.latestVersion = Int32(offer.latestVersion ?? 0)
            }
        }
    }
}

extension Spotter_V1_Comment {
    init(_ comment: WorkoutComment) {
        self.init()
        commentID = comment.id.lowercasedString
        workoutID = comment.workoutID.description
        if let index = comment.exerciseIndex { exerciseIndex = Int32(index) }
        if let index = comment.setIndex { setIndex = Int32(index) }
        authorID = comment.authorID.description
        authorName = comment.authorName
        authorRole = comment.authorSide.rawValue
        body = comment.body
        createdAt = Spotter_V1_Timestamp(comment.createdAt)
    }
}

extension Spotter_V1_ListCommentsResponse {
    init(_ comments: [WorkoutComment]) {
        self.init()
        self.comments = comments.map(Spotter_V1_Comment.init)
    }
}

extension Spotter_V1_ListAssignmentsResponse {
    init(_ assignments: [Assignment]) {
        self.init()
        self.assignments = assignments.map(Spotter_V1_Assignment.init)
    }
}
