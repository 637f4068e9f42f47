import Foundation

/// For You: deterministic rules over the lifter's last eight weeks, each recommendation with its
/// reason in words. The README ("Discover") documents them; in order:
///
/// 1. **Muscle group resting** — a muscle group trained in at least 2 workouts in the last 8 weeks
///    but not in the last 7 days (longest gap first): the most popular publication working it.
///    "you have not trained back in 9 days".
/// 2. **Similar to a template you repeat** — a template logged at least 3 times in the last 8
///    weeks: the publications sharing at least a quarter of its exercises (Jaccard index over
///    exercise ids), most similar first. "similar to Upper A you repeat weekly" (3 or 4 of the last
///    4 weeks) or "similar to Upper A you logged 5 times in 8 weeks".
/// 3. **Followed by lifters who train like you** — publications followed by at least 10 other
///    lifters who also follow one you follow (only counts are read, never who).
///    "popular with lifters who train like you: they also follow 5/3/1".
/// 4. **Popular** — to fill the list: the most popular publications needing only equipment you
///    have used in the last 8 weeks (any equipment without history). "popular this month" when
///    lifters followed it lately; else "needs only equipment you train with", or without history
///    "a public plan to start with".
///
/// Each rule adds at most 3 and the list stops at 10; a publication appears once, under the first
/// rule that chose it. Candidates are the 200 most popular live publications that are neither the
/// lifter's own nor already followed or saved; ties fall to the publication id.
public enum Recommendations {
    public static let limit = 10
    public static let perRule = 3
    public static let candidates = 200
    public static let minimumShared = 10
    public static let restingDays = 7
    public static let minimumWorkouts = 2
    public static let minimumRepeats = 3
    public static let minimumSimilarity = 0.25

    public static func choose(
        digest: TrainingDigest, candidates: [Publication],
        alsoFollowed: [(publication: PublicationID, because: PublicationID, shared: Int)],
        followedTitles: [PublicationID: String], now: Date
    ) -> [Recommendation] {
        var chosen: [Recommendation] = []
        var used: Set<PublicationID> = []
        func add(_ publication: Publication, _ rule: Recommendation.Rule, _ reason: String) {
            guard chosen.count < limit, used.insert(publication.id).inserted else { return }
            chosen.append(Recommendation(publication: publication, rule: rule, reason: reason))
        }
        let byPopularity = candidates.sorted {
            ($0.recentFollowers, $1.id.description) > ($1.recentFollowers, $0.id.description)
        }

        // 1. Muscle groups resting.
        let resting = digest.muscleGroups
            .filter { $0.workouts >= minimumWorkouts }
            .map { ($0.muscleGroup, days(from: $0.lastTrainedAt, to: now)) }
            .filter { $0.1 >= restingDays }
            .sorted { ($0.1, $1.0.rawValue) > ($1.1, $0.0.rawValue) }
        var added = 0
        for (group, days) in resting where added < perRule {
            guard
                let publication = byPopularity.first(where: {
                    !used.contains($0.id) && $0.facets.muscleGroups.contains(group)
                })
            else { continue }
            add(publication, .muscleGroupRest, "you have not trained \(group.words) in \(days) days")
            added += 1
        }

        // 2. Similar to a template the lifter repeats.
        added = 0
        let repeated = digest.templates.filter { $0.workouts >= minimumRepeats }
            .sorted { ($0.workouts, $1.templateID.description) > ($1.workouts, $0.templateID.description) }
        for template in repeated where added < perRule {
            let own = Set(template.exerciseIDs)
            let similar =
                byPopularity
                .filter { !used.contains($0.id) }
                .map { ($0, similarity(own, Set($0.facets.exerciseIDs))) }
                .filter { $0.1 >= minimumSimilarity }
                .sorted { ($0.1, $0.0.recentFollowers) > ($1.1, $1.0.recentFollowers) }
            guard let (publication, _) = similar.first else { continue }
            let habit =
                template.recentWeeks >= 3
                ? "you repeat weekly" : "you logged \(template.workouts) times in 8 weeks"
            add(publication, .similarToRepeated, "similar to \(template.name) \(habit)")
            added += 1
        }

        // 3. Followed by lifters who follow what this lifter follows.
        added = 0
        let byID = Dictionary(candidates.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        let shared = alsoFollowed.sorted {
            ($0.shared, $1.publication.description) > ($1.shared, $0.publication.description)
        }
        for pair in shared where added < perRule {
            guard let publication = byID[pair.publication], !used.contains(publication.id),
                let title = followedTitles[pair.because]
            else { continue }
            add(publication, .alsoFollowed, "popular with lifters who train like you: they also follow \(title)")
            added += 1
        }

        // 4. Popular, for the equipment the lifter uses (and bodyweight, which needs none).
        let equipment = digest.equipment.isEmpty ? [] : Set(digest.equipment + [.bodyweight])
        for publication in byPopularity where chosen.count < limit {
            guard equipment.isEmpty || Set(publication.facets.equipment).isSubset(of: equipment) else { continue }
            // "Popular" only of what lifters followed lately; else what it is offered for.
            let reason =
                publication.recentFollowers > 0
                ? "popular this month"
                : equipment.isEmpty ? "a public plan to start with" : "needs only equipment you train with"
            add(publication, .popular, reason)
        }
        return chosen
    }

    /// Whole days between two instants.
    static func days(from: Date, to: Date) -> Int {
        max(0, Int(to.timeIntervalSince(from) / 86_400))
    }

    /// The Jaccard index of two exercise sets.
    public static func similarity(_ a: Set<ExerciseID>, _ b: Set<ExerciseID>) -> Double {
        let union = a.union(b).count
        return union == 0 ? 0 : Double(a.intersection(b).count) / Double(union)
    }
}

extension MuscleGroup {
    /// How a sentence names it: "lower back", "quadriceps".
    public var words: String { rawValue.replacingOccurrences(of: "_", with: " ") }
}
