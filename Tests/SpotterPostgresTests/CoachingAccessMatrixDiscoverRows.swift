import Foundation
import SpotterCore
import SpotterTestSupport
import Testing

let publicationNotFound = MatrixOutcome.failure(.notFound("publication not found"))

/// The owner's publication of "owner plan" (the row that publishes it runs first).
private func ownerPublication(_ w: World) async throws -> PublicationID {
    try await w.discover.ownPublications(w.principal(.owner)).first?.id ?? .random()
}

/// coach_full's publication of the "Full block" program.
private func coachPublication(_ w: World) async throws -> PublicationID {
    try await w.discover.ownPublications(w.principal(.coachFull)).first?.id ?? .random()
}

/// Discover's calls, after the other rows: a publication is public, everything else of its author
/// stays private — publishing someone else's template or program finds nothing, browsing never
/// shows a private template, and the answers name the author's private ids to no one else.
func discoverMatrixRows() -> [MatrixRow] {
    let everyone = lifterCall(owner: .success, lifters: .success, coaches: .success)
    return [
        MatrixRow(
            name: "discover.publish (the owner's own template)",
            call: { _, _, p, w in
                try await w.discover.publish(
                    p,
                    PublishDraft(
                        kind: .template, sourceID: w.ownTemplates[.owner]!, description: "", difficulty: "beginner",
                        categories: ["strength"]))
            },
            expected: lifterCall(owner: .success, lifters: templateNotFound, coaches: templateNotFound),
            twin: { world in
                var twin = world.randomized()
                twin.ownTemplates[.owner] = UUID().uuidString.lowercased()
                return twin
            }
        ),
        MatrixRow(
            name: "discover.publish (coach_full's program, assigned to the owner)",
            call: { _, _, p, w in
                try await w.discover.publish(
                    p,
                    PublishDraft(
                        kind: .program, sourceID: w.program, description: "", difficulty: "advanced",
                        categories: ["powerlifting"]))
            },
            expected: { $0 == .coachFull ? .success : programNotFound }
        ),
        MatrixRow(
            name: "discover.browse (text 'plan': only what was published)",
            call: { _, _, p, w in
                var request = DiscoverService.BrowseRequest()
                request.text = "plan"
                return try await w.discover.browse(p, request, pageSize: 0, pageToken: "")
            },
            expected: everyone,
            visible: { [$0, .owner] },
            check: { role, value, _ in
                expectValue(value, as: Page<Publication>.self, role) { page in
                    // Every tenant has a private "<role> plan" template; only the owner's is public.
                    #expect(page.items.map(\.title) == ["owner plan"], "as \(role)")
                    #expect(page.items.allSatisfy { $0.sourceID == nil } == (role != .owner), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "discover.publication (the owner's publication)",
            call: { _, _, p, w in
                try await w.discover.publication(p, id: try await ownerPublication(w).description, version: 0)
            },
            expected: everyone,
            visible: { [$0, .owner] }
        ),
        MatrixRow(
            name: "discover.save (the owner's publication, into one's own templates)",
            call: { _, _, p, w in try await w.discover.save(p, id: try await ownerPublication(w).description) },
            expected: everyone,
            check: { role, value, w in
                expectValue(value, as: Template.self, role) { copy in
                    #expect(copy.content.name == "owner plan" && copy.id.description != w.ownTemplates[.owner])
                }
            }
        ),
        MatrixRow(
            name: "discover.follow (coach_full's public program)",
            call: { _, _, p, w in
                try await w.discover.follow(p, id: try await coachPublication(w).description, startOn: "")
            },
            expected: lifterCall(owner: .success, lifters: .success, coaches: coachesRefused),
            check: { role, value, w in
                expectValue(value, as: ProgramFollow.self, role) { follow in
                    #expect(follow.program.ownerID == w.id(role) && follow.program.content.name == "Full block")
                }
            }
        ),
        MatrixRow(
            name: "discover.setListing (the caller into the coach directory)",
            call: { _, _, p, w in
                try await w.discover.setListing(p, listed: true, highlights: ["\(w.role(of: p)) coaches"]) as Any
            },
            expected: lifterCall(owner: .failure(coachOnly), lifters: .failure(coachOnly), coaches: .success)
        ),
        MatrixRow(
            name: "discover.directory (listed coaches)",
            call: { _, _, p, w in
                try await w.discover.directory(p, speciality: "", text: "", pageSize: 0, pageToken: "")
            },
            expected: everyone,
            visible: { Set(Role.allCases.filter(\.isCoach)).union([$0]) },
            check: { role, value, _ in
                expectValue(value, as: Page<AuthorProfile>.self, role) { page in
                    #expect(
                        Set(page.items.map(\.username)) == Set(Role.allCases.filter(\.isCoach).map(\.rawValue)),
                        "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "discover.author (coach_full's public profile)",
            call: { _, _, p, w in try await w.discover.author(p, id: w.id(.coachFull).description) },
            expected: everyone,
            visible: { [$0, .coachFull] },
            check: { role, value, _ in
                expectValue(value, as: (AuthorProfile, [Publication]).self, role) { profile, publications in
                    #expect(profile.username == "coach_full" && publications.map(\.title) == ["Full block"])
                }
            }
        ),
        MatrixRow(
            name: "discover.ownPublications (one's own only)",
            call: { _, _, p, w in try await w.discover.ownPublications(p) },
            expected: everyone,
            check: { role, value, _ in
                expectValue(value, as: [Publication].self, role) { publications in
                    let expected: [String] =
                        switch role {
                        case .owner: ["owner plan"]
                        case .coachFull: ["Full block"]
                        default: []
                        }
                    #expect(publications.map(\.title) == expected, "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "discover.followed (one's own follows and saves)",
            call: { _, _, p, w in try await w.discover.followed(p).map { $0.1.title } },
            expected: everyone,
            check: { role, value, _ in
                expectValue(value, as: [String].self, role) { titles in
                    #expect(
                        Set(titles) == (role.isCoach ? ["owner plan"] : ["owner plan", "Full block"]), "as \(role)")
                }
            }
        ),
        MatrixRow(
            name: "discover.forYou",
            call: { _, _, p, w in try await w.discover.forYou(p) },
            expected: lifterCall(owner: .success, lifters: .success, coaches: coachesRefused),
            visible: { [$0, .owner, .coachFull] }
        ),
        MatrixRow(
            name: "discover.unpublish (the owner's publication)",
            call: { _, _, p, w in
                try await w.discover.unpublish(p, id: try await ownerPublication(w).description)
                return "unpublished"
            },
            expected: lifterCall(owner: .success, lifters: publicationNotFound, coaches: publicationNotFound)
        ),
    ]
}
