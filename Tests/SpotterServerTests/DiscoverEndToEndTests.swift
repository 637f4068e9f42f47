import Foundation
import GRPCCore
import GRPCNIOTransportHTTP2
import GRPCProtobuf
import SpotterProto
import SpotterTestSupport
import Testing

@Suite("Discover end to end over TLS")
struct DiscoverEndToEndTests {
    private static let squat = "c0000000-0000-4000-8000-000000000001"
    private static let bench = "c0000000-0000-4000-8000-000000000002"

    /// Publishing `source` as a beginner's strength plan.
    private static func publish(_ kind: Spotter_V1_PublicationKind, _ source: String) -> Spotter_V1_PublishRequest {
        .with {
            $0.kind = kind
            $0.sourceID = source
            $0.difficulty = .beginner
            $0.categories = [.strength]
        }
    }

    @Test("a coach publishes a program and lists in the directory; a lifter finds, follows and is offered version 2")
    func publishBrowseFollow() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let cora = try await signUpLifter(client, "cora", kind: .coach)
                let ada = try await signUpLifter(client, "ada")
                let templates = Spotter_V1_TemplateService.Client(wrapping: client)
                let programs = Spotter_V1_ProgramService.Client(wrapping: client)
                let discover = Spotter_V1_DiscoverService.Client(wrapping: client)
                let coaching = Spotter_V1_CoachingService.Client(wrapping: client)
                func item(_ exercise: String, sets: Int32) -> Spotter_V1_TemplateItemInput {
                    .with {
                        $0.exerciseID = exercise
                        $0.targetSets = sets
                        $0.repsMin = 5
                        $0.restSeconds = 180
                    }
                }
                let day = try await templates.createTemplate(
                    .with {
                        $0.template = .with {
                            $0.name = "Squat and bench"
                            $0.items = [item(Self.squat, sets: 5), item(Self.bench, sets: 5)]
                        }
                    }, metadata: cora)
                let program = try await programs.createProgram(
                    .with {
                        $0.program = .with {
                            $0.name = "Cora's 5x5"
                            $0.notes = "Three days a week, add 2.5 kg each session."
                            $0.weeks = 1
                            $0.days = [Int32(1), 3, 5].map { weekday in
                                .with {
                                    $0.week = 1
                                    $0.weekday = weekday
                                    $0.templateID = day.templateID
                                }
                            }
                        }
                    }, metadata: cora)
                let published = try await discover.publish(Self.publish(.program, program.programID), metadata: cora)
                #expect(published.version == 1 && published.title == "Cora's 5x5")
                #expect(published.description_p == "Three days a week, add 2.5 kg each session.")
                #expect(published.muscleGroups == [.chest, .quadriceps] && published.equipment == [.barbell])
                #expect(published.weeks == 1 && published.sessionsPerWeek == 3 && published.estimatedMinutes > 0)
                _ = try await discover.setDirectoryListing(
                    .with {
                        $0.listed = true
                        $0.highlights = ["20 years under the bar"]
                    }, metadata: cora)

                // The lifter finds it by filters and text, and the coach in the directory.
                let found = try await discover.browsePublications(
                    .with {
                        $0.kind = .program
                        $0.muscleGroups = [.quadriceps]
                        $0.equipment = [.barbell, .dumbbell]
                        $0.text = "5x5"
                    }, metadata: ada)
                #expect(found.publications.map(\.publicationID) == [published.publicationID])
                #expect(found.publications[0].authorName == "cora")
                let coaches = try await discover.listCoaches(.init(), metadata: ada)
                #expect(coaches.coaches.map(\.username) == ["cora"])
                #expect(coaches.coaches[0].highlights == ["20 years under the bar"])
                let profile = try await discover.getCoachProfile(
                    .with { $0.coachID = coaches.coaches[0].coachID }, metadata: ada)
                #expect(profile.publications.map(\.title) == ["Cora's 5x5"])
                let detail = try await discover.getPublication(
                    .with { $0.publicationID = published.publicationID }, metadata: ada)
                #expect(detail.templates.map(\.name) == ["Squat and bench"])
                #expect(
                    detail.programDays.count == 3
                        && detail.programDays.allSatisfy { $0.templateName == "Squat and bench" })
                #expect(detail.templates[0].templateID != day.templateID)

                // Follow it: GetToday plans from the copy.
                let followed = try await discover.followPublication(
                    .with { $0.publicationID = published.publicationID }, metadata: ada)
                #expect(followed.program.ownerID != published.authorID)
                #expect(followed.publication.publicationID == published.publicationID)
                #expect(followed.publication.version == 1 && followed.publication.latestVersion == 0)
                let today = try await coaching.getToday(.init(), metadata: ada)
                #expect(today.followed.publication.version == 1)

                // Version 2 is offered in GetToday, not applied.
                _ = try await templates.updateTemplate(
                    .with {
                        $0.templateID = day.templateID
                        $0.template = .with {
                            $0.name = "Squat and bench"
                            $0.items = [item(Self.squat, sets: 3), item(Self.bench, sets: 3)]
                        }
                    }, metadata: cora)
                let second = try await discover.publish(Self.publish(.program, program.programID), metadata: cora)
                #expect(second.version == 2)
                let offered = try await coaching.getToday(.init(), metadata: ada)
                #expect(offered.followed.publication.version == 1 && offered.followed.publication.latestVersion == 2)
                let listed = try await discover.listFollowedPublications(.init(), metadata: ada)
                #expect(
                    listed.publications.map(\.version) == [1] && listed.publications.map(\.publication.version) == [2])
                let recommendations = try await discover.forYou(.init(), metadata: ada)
                #expect(
                    !recommendations.recommendations.map(\.publication.publicationID).contains(published.publicationID))
            }
        }
    }

    @Test("an administrator lists publications and takes one down with spotterctl, audited; followers keep their copy")
    func moderation() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let cora = try await signUpLifter(client, "cora", kind: .coach)
                let ada = try await signUpLifter(client, "ada")
                let templates = Spotter_V1_TemplateService.Client(wrapping: client)
                let discover = Spotter_V1_DiscoverService.Client(wrapping: client)
                let template = try await templates.createTemplate(
                    .with {
                        $0.template = .with {
                            $0.name = "Totally legit plan"
                            $0.items = [
                                .with {
                                    $0.exerciseID = Self.squat; $0.targetSets = 3; $0.repsMin = 5
                                }
                            ]
                        }
                    }, metadata: cora)
                let published = try await discover.publish(Self.publish(.template, template.templateID), metadata: cora)
                let copy = try await discover.savePublication(
                    .with { $0.publicationID = published.publicationID }, metadata: ada)

                let listed = try await server.database.spotterctl([
                    "publications", "list", "--author", "cora", "--json",
                ])
                let items = try #require(try listed.json() as? [[String: Any]], "\(listed.output)")
                #expect(items.map { $0["id"] as? String } == [published.publicationID])
                // Numbers are JSON numbers, times UTC with their Z.
                #expect(items.first?["followers"] as? Int == 1 && items.first?["version"] as? Int == 1)
                #expect(items.first?["status"] as? String == "live")
                #expect(items.first?["author_name"] as? String == "cora")
                #expect((items.first?["updated_at"] as? String)?.hasSuffix("Z") == true)
                let noReason = try await server.database.spotterctl([
                    "publications", "unpublish", published.publicationID,
                ])
                #expect(noReason.status != 0)
                let typo = try await server.database.spotterctl(
                    ["publications", "unpublish", "not-an-id", "--reason", "x"])
                #expect(typo.output == "spotterctl: id: must be a publication id from publications list\n")
                let unconfirmed = try await server.database.spotterctl(
                    ["publications", "unpublish", published.publicationID, "--reason", "spam report #12"])
                #expect(unconfirmed.status == 1)
                #expect(unconfirmed.output.contains("by cora out of Discover?"), "\(unconfirmed.output)")
                let unknown = try await server.database.spotterctl(
                    ["publications", "unpublish", UUID().uuidString, "--reason", "x"])
                #expect(unknown.output.hasPrefix("spotterctl: no live publication "), "\(unknown.output)")
                let down = try await server.database.spotterctl(
                    ["publications", "unpublish", published.publicationID, "--reason", "spam report #12", "--yes"])
                #expect(down.status == 0, "\(down.output)")
                #expect(down.output == "unpublished \(published.publicationID)\n")
                let again = try await server.database.spotterctl(
                    ["publications", "unpublish", published.publicationID, "--reason", "again", "--yes"])
                #expect(again.output == "spotterctl: no live publication \(published.publicationID)\n")
                #expect(
                    try await server.database.count(
                        "SELECT count(*)::int FROM audit_log WHERE action = 'publication.unpublish'") == 1)
                #expect(try await discover.browsePublications(.init(), metadata: ada).publications.isEmpty)
                // The saver's copy stays, and the live list is empty; --all shows it unpublished.
                #expect(
                    try await templates.getTemplate(.with { $0.templateID = copy.templateID }, metadata: ada).name
                        == "Totally legit plan")
                let live = try await server.database.spotterctl(["publications", "list", "--json"])
                #expect((try live.json() as? [Any])?.isEmpty == true)
                let all = try await server.database.spotterctl(["publications", "list", "--all"])
                #expect(all.output.contains("unpublished") && all.output.contains("Totally legit plan"))
            }
        }
    }

    @Test("refusals name the field and the reason")
    func refusals() async throws {
        try await TestServer.with { server in
            try await server.withClient { client in
                let ada = try await signUpLifter(client, "ada")
                let discover = Spotter_V1_DiscoverService.Client(wrapping: client)
                let noKind = await rpcError {
                    _ = try await discover.publish(.with { $0.categories = [.strength] }, metadata: ada)
                }
                #expect(noKind?.code == .invalidArgument)
                #expect(noKind?.message.contains("kind: must be TEMPLATE or PROGRAM") == true)
                #expect(noKind?.message.contains("difficulty: must be BEGINNER, INTERMEDIATE or ADVANCED") == true)
                let unknownEnum = await rpcError {
                    _ = try await discover.browsePublications(
                        .with { $0.muscleGroups = [.UNRECOGNIZED(99)] }, metadata: ada)
                }
                #expect(unknownEnum?.code == .invalidArgument)
                #expect(unknownEnum?.message.contains("muscle_groups[0]: must be one of chest, back") == true)
                let lifterListing = await rpcError {
                    _ = try await discover.setDirectoryListing(.with { $0.listed = true }, metadata: ada)
                }
                #expect(lifterListing?.code == .permissionDenied)
                let missing = await rpcError {
                    _ = try await discover.followPublication(
                        .with { $0.publicationID = UUID().uuidString }, metadata: ada)
                }
                #expect(missing?.code == .notFound && missing?.message == "publication not found")
                #expect(await rpcCode { _ = try await discover.forYou(.init(), metadata: [:]) } == .unauthenticated)
            }
        }
    }
}
