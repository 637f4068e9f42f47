/// The rules for times, distances and circuits, shared by logged sets and template targets.
public enum TimedWork {
    /// A day: the longest a set or a target may last.
    public static let maximumDurationSeconds = 86_400
    /// 1,000 km: past any ultra-marathon.
    public static let maximumDistanceMeters = 1_000_000
    public static let maximumCircuits = 50
    public static let maximumRounds = 20

    static func duration(_ seconds: Int?, _ field: String, into validator: inout Validator) {
        guard let seconds else { return }
        validator.check(
            (1...maximumDurationSeconds).contains(seconds), field,
            "must be between 1 and \(maximumDurationSeconds) seconds")
    }

    static func distance(_ meters: Int?, _ field: String, into validator: inout Validator) {
        guard let meters else { return }
        validator.check(
            (1...maximumDistanceMeters).contains(meters), field, "must be between 1 and \(maximumDistanceMeters) metres"
        )
    }
}
