import Foundation
import SpotterCore

/// The portal writes dates, weights and durations as the API's `DisplayFormat` does.
typealias Format = DisplayFormat

extension DisplayFormat {
    /// In the signed-in viewer's time zone and unit.
    init(_ profile: Profile) {
        self.init(timeZone: profile.timeZone, unit: profile.unit)
    }

    /// What a scope shares, for "… has not shared … with you".
    static func shared(_ scope: Scope) -> String {
        switch scope {
        case .history: "their workout history"
        case .details: "the details of their workouts"
        case .progress: "their progress"
        case .body: "their body measurements"
        }
    }

    /// A scope's name and what it lets a coach see.
    static func scopeLabel(_ scope: Scope) -> (label: String, hint: String) {
        switch scope {
        case .history: ("History", "workout names, dates and durations")
        case .details:
            ("Details", "every set, rep, weight, RPE and note of the workouts History shows; needed to comment")
        case .progress:
            (
                "Progress",
                "estimated maxes with each day's top set (its weight, reps and RPE), records, and sets and volume per week"
            )
        case .body: ("Body", "body weight and measurements")
        }
    }

    static func scopes(_ scopes: Set<Scope>) -> String {
        scopes.isEmpty ? "nothing" : scopes.sorted().map(\.rawValue).joined(separator: ", ")
    }
}

extension StringProtocol {
    /// The text with its first letter capitalised, to open a sentence ("you already…" → "You
    /// already…").
    var sentenceCased: String { prefix(1).uppercased() + dropFirst() }
}
