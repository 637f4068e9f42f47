/// Every threshold of run analysis: the CityJogger spec's definitions and the numbers it leaves open.
public enum RunRules {
    // MARK: The spec

    /// Run Pause: "an absence of footstep input for two seconds or more", so a gap of exactly
    /// 2.000 s between footsteps is a pause and 1.999 s is not.
    public static let pauseMilliseconds: Int64 = 2_000
    /// Weaving: "at least four swerves in a minute".
    public static let weavingSwerves = 4
    /// Weaving: "or two swerves and two pauses in a minute", read as at least two of each.
    public static let weavingPairedSwerves = 2
    /// See `weavingPairedSwerves`.
    public static let weavingPairedPauses = 2
    /// "In a minute" is per elapsed minute of the run, counted from the first footstep: the same
    /// minutes as the per-minute cadence, so a client can show them side by side; a sliding minute
    /// would call one burst of swerves weaving in several overlapping minutes.
    public static let minuteMilliseconds: Int64 = 60_000

    // MARK: Swerves

    /// The smallest direction change that is a swerve: below it, the sway of a stride, a compass's
    /// wobble and a bend in the pavement.
    public static let minimumTurnDegrees = 30.0
    /// How far below `minimumTurnDegrees` a measured turn may fall and still be one: a mean of
    /// headings (sums of sines and cosines) puts an exact 30° turn a few billionths of a degree under.
    static let turnTolerance = 1e-6
    /// Once a turn has started, it lasts until the change falls below this (or turns the other way):
    /// a turn that wavers around `minimumTurnDegrees`, as a 45° corner seen through a wobbling fix
    /// does, is one swerve, not three.
    public static let turnEndDegrees = 15.0
    /// A turn the same way that starts this soon after one ends is the same turn: a fix's wobble
    /// can dip a corner below `turnEndDegrees` for a footstep or two.
    public static let turnMergeMilliseconds: Int64 = 2_000
    /// A turn this large or larger is the spec's 180° (a U-turn), not a swerve: no one turns exactly
    /// 180°, and a real turn-around often ends a little to one side.
    public static let uTurnDegrees = 150.0
    /// With a compass, the direction before and after each footstep is the mean heading over this
    /// long either side: long enough to average out the left-right sway of a few strides, short enough
    /// that swerves 5 s apart stay apart. A turn slower than about 30° in this time is a curve, not a
    /// swerve.
    public static let headingWindowMilliseconds: Int64 = 2_000
    /// Headings a window needs (about a second of jogging) before its mean means anything; fewer,
    /// as beside a pause or at either end of the run, and no turn is measured there.
    public static let minimumWindowHeadings = 3
    /// The mean resultant length (0 = headings everywhere, 1 = all the same) below which a window has
    /// no clear direction: that is the middle of a turn, so the turn is measured around it.
    public static let minimumHeadingClarity = 0.5
    /// The compass is used when at least this share of the footsteps carries a heading; otherwise
    /// directions come from positions, so a device that sent one stray heading is not judged on it.
    public static let compassShare = 0.5
    /// Without a compass, the direction before and after a footstep is the bearing to and from the
    /// positions this far away: a phone's fix wobbles by a few metres, which over 20 m moves a
    /// bearing by about 10°, well under `minimumTurnDegrees`. The price: turns less than about 30 m
    /// apart (10 s of jogging) are told apart only when they go opposite ways.
    public static let bearingMeters = 20.0
    /// How far in time to look for a position `bearingMeters` away; none within it (a long pause, a
    /// lost fix), and no turn is measured there.
    public static let bearingReachMilliseconds: Int64 = 20_000

    // MARK: Distance

    /// Distance adds up straight lines between positions at least this far apart, so the wobble of
    /// a fix at every footstep (a metre apart) does not add metres that were never run; a
    /// right-angle corner cut short loses at most about 4 m.
    public static let distanceStepMeters = 10.0
    /// Distance is given only when no stretch of running (pauses not counted) this long went without
    /// a position, at the start, between positions and at the end; otherwise it would be a straight
    /// line across the gap and silently short.
    public static let maximumPositionGapMilliseconds: Int64 = 30_000

    // MARK: Validation

    /// The most footsteps a run may have: a 4-hour marathon at 180 steps a minute is 43,200; twice
    /// that and some.
    public static let maximumSamples = 100_000
    /// The latest offset a footstep may have: 24 hours, longer than any one run.
    public static let maximumOffsetMilliseconds: Int64 = 24 * 60 * 60 * 1_000
    /// Footsteps closer than this are not footsteps (500 a minute; sprinters reach about 300).
    public static let minimumStepMilliseconds: Int64 = 120
    /// The fastest a jogger moves: a little under the fastest human sprint (about 12.4 m/s).
    public static let maximumSpeed = 12.0
    /// Speed is checked from each position to one at least this long before it (or the first), so
    /// the wobble of fixes a third of a second apart cannot look like speed.
    public static let speedWindowMilliseconds: Int64 = 10_000
    /// How far two fixes may be off between them (25 m each, a city street's worth of multipath);
    /// a speed counts only the distance beyond this.
    public static let positionErrorMeters = 50.0
    /// At most this many problems are listed; the rest are counted in one line.
    public static let maximumViolations = 20

    /// Whether a minute with these swerves and pauses is weaving.
    public static func isWeaving(swerves: Int, pauses: Int) -> Bool {
        swerves >= weavingSwerves || (swerves >= weavingPairedSwerves && pauses >= weavingPairedPauses)
    }
}
