import Foundation

/// The signed-in tenant's profile and settings.
public struct AccountService: Sendable {
    private let store: any ProfileStore
    private let now: @Sendable () -> Date

    public init(store: any ProfileStore, now: @escaping @Sendable () -> Date = { Date() }) {
        self.store = store
        self.now = now
    }

    /// The principal's profile.
    public func profile(_ principal: Principal) async throws -> Profile {
        try await store.profile(principal)
    }

    /// Validates and applies a profile change; an empty change returns the profile unchanged.
    /// `unreadUnit`: the request named a unit that is none (an enum value out of range); it is
    /// refused with the update's other problems, all in one answer.
    public func updateProfile(_ principal: Principal, _ update: ProfileUpdate, unreadUnit: Bool = false) async throws
        -> Profile
    {
        var validator = Validator()
        validator.check(!unreadUnit, "unit", "must be KG or LB")
        if let name = update.displayName, let problem = CredentialRules.displayNameProblem(name) {
            validator.add("display_name", problem)
        }
        if let zone = update.timeZone, let problem = CredentialRules.timeZoneProblem(zone) {
            validator.add("time_zone", problem)
        }
        if let bio = update.bio, let problem = Self.bioProblem(bio) {
            validator.add("bio", problem)
        }
        if let specialities = update.specialities {
            for (field, problem) in Self.specialitiesProblems(specialities) { validator.add(field, problem) }
        }
        // The bio and specialities are what the coach directory shows: a lifter has none to set.
        // Clearing them, or sending back what is stored (a device pushing the whole profile it
        // pulled), stays possible.
        // The stored profile, read once and only when a rule needs it.
        var stored: Profile?
        func current() async throws -> Profile {
            if let stored { return stored }
            let profile = try await store.profile(principal)
            stored = profile
            return profile
        }
        let bio = update.bio.map { $0.trimmingWhitespacesAndNewlines() } ?? ""
        let specialities = update.specialities?.map { $0.trimmingWhitespaces() } ?? []
        if !bio.isEmpty || !specialities.isEmpty {
            let profile = try await current()
            if profile.kind != .coach {
                if !bio.isEmpty, bio != profile.bio {
                    validator.add("bio", "is for coaches, whom the coach directory lists")
                }
                if !specialities.isEmpty, specialities != profile.specialities {
                    validator.add("specialities", "are for coaches, whom the coach directory lists")
                }
            }
        }
        if let birthday = update.birthday, !birthday.isEmpty {
            // Not after today where the person is: in the zone this change sets, else their own.
            var zone = update.timeZone.flatMap { CredentialRules.timeZoneProblem($0) == nil ? $0 : nil }
            if zone == nil { zone = try await current().timeZone }
            if let problem = CivilDate.pastDateProblem(birthday, now: now(), timeZone: zone) {
                validator.add("birthday", problem)
            }
        }
        try validator.validate()
        var cleaned = update
        cleaned.displayName = update.displayName?.trimmingWhitespaces()
        cleaned.bio = update.bio?.trimmingWhitespacesAndNewlines()
        cleaned.specialities = update.specialities?.map { $0.trimmingWhitespaces() }
        if cleaned == ProfileUpdate() { return try await store.profile(principal) }
        return try await store.updateProfile(principal, cleaned, now: now())
    }

    static let maximumBioLength = 1_000
    static let maximumSpecialities = 8
    static let maximumSpecialityLength = 40

    /// Why `bio` cannot be a profile's bio, or `nil`. Line breaks and tabs are text; other control
    /// characters are not.
    static func bioProblem(_ bio: String) -> String? {
        let trimmed = bio.trimmingWhitespacesAndNewlines()
        if trimmed.storedLength > maximumBioLength { return "must be at most \(maximumBioLength) characters" }
        if trimmed.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control && !["\n", "\r", "\t"].contains($0)
        }) {
            return "must not contain control characters"
        }
        return CredentialRules.directionProblem(trimmed)
    }

    /// The problems of a list of specialities, by field: `specialities` for the list,
    /// `specialities[i]` for one of them.
    static func specialitiesProblems(_ specialities: [String]) -> [(String, String)] {
        var problems: [(String, String)] = []
        if specialities.count > maximumSpecialities {
            problems.append(("specialities", "must be at most \(maximumSpecialities), not \(specialities.count)"))
        }
        var seen = Set<String>()
        for (index, speciality) in specialities.enumerated() {
            let trimmed = speciality.trimmingWhitespaces()
            let field = "specialities[\(index)]"
            if trimmed.isEmpty {
                problems.append((field, "must not be empty"))
            } else if trimmed.storedLength > maximumSpecialityLength {
                problems.append((field, "must be at most \(maximumSpecialityLength) characters"))
            } else if trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                problems.append((field, "must not contain control characters"))
            } else if !seen.insert(trimmed.lowercased()).inserted {
                problems.append((field, "repeats an earlier one"))
            }
        }
        return problems
    }
}
