extension RunAnalysis {
    /// Metres along the positions, in straight lines between positions `RunRules.distanceStepMeters`
    /// or more apart; `nil` unless positions cover the run (no `RunRules.maximumPositionGapMilliseconds`
    /// of running without one, at the start, between and at the end).
    static func distance(_ samples: [FootstepSample]) -> Double? {
        // Running time up to each footstep: a pause's standing still may go without a position.
        var running: [Int64] = [0]
        for (before, after) in zip(samples, samples.dropFirst()) {
            let gap = after.offsetMilliseconds - before.offsetMilliseconds
            running.append(running[running.count - 1] + (gap >= RunRules.pauseMilliseconds ? 0 : gap))
        }
        let positioned = samples.indices.filter { samples[$0].position != nil }
        guard positioned.count >= 2 else { return nil }
        let gaps = zip(positioned, positioned.dropFirst()).map { running[$1] - running[$0] }
        let uncovered = [running[positioned[0]], running[samples.count - 1] - running[positioned.last!]] + gaps
        guard uncovered.allSatisfy({ $0 <= RunRules.maximumPositionGapMilliseconds }) else { return nil }

        var meters = 0.0
        var from = samples[positioned[0]].position!
        for index in positioned.dropFirst() {
            let to = samples[index].position!
            let step = from.meters(to: to)
            if step >= RunRules.distanceStepMeters || index == positioned.last! {
                meters += step
                from = to
            }
        }
        return meters
    }
}
