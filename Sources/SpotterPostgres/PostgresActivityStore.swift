import Foundation
import Postgres
import SpotterCore

/// `ActivityStore` on PostgreSQL. The facts are the live workouts' starts (one row each, with the
/// local wall-clock time computed by the database), the first new personal record (index probes
/// per exercise, below; kept between reconciliations in `activity_kept`) and the challenges.
public struct PostgresActivityStore: ActivityStore {
    private let database: SpotterDatabase
    private let cache = ActivityCache()

    public init(database: SpotterDatabase) {
        self.database = database
    }

    public func facts(_ principal: Principal, now: Date) async throws -> ActivityFacts {
        try await database.withTenant(principal) { connection in
            var none: ActivityCache.Entry?
            let tenant = principal.tenantID
            let profile = try Profile(
                try await connection.query(Self.profileSQL(own: !principal.isClientView), [tenant.rawValue, now]))
            return try await Self.facts(tenant, profile: profile, connection, kept: nil, cached: &none).facts
        }
    }

    public func reconcile(
        _ tenant: TenantID, now: Date, onlyAfterChanges: Bool, _ evaluate: @Sendable (ActivityFacts) -> [Achievement]
    ) async throws -> ([Achievement], [StoredAward])? {
        // Out of the cache while this round runs: the round that uses it appends to it in place.
        var cached = cache.take(tenant)
        // What this round read, kept for the next once its transaction has committed.
        var learned: ActivityCache.Entry?
        let answer = try await reconcile(tenant, now: now, onlyAfterChanges, &cached, evaluate) { learned = $0 }
        // A quiet round (nothing changed since the kept state) leaves the entry as it was.
        if let kept = learned ?? cached { cache.store(tenant, kept) }
        return answer
    }

    private func reconcile(
        _ tenant: TenantID, now: Date, _ onlyAfterChanges: Bool, _ cached: inout ActivityCache.Entry?,
        _ evaluate: @Sendable (ActivityFacts) -> [Achievement], learned: (ActivityCache.Entry) -> Void
    ) async throws -> ([Achievement], [StoredAward])? {
        // One reconciliation at a time per tenant: the lock is taken in BEGIN's round trip, before
        // the feed's counter row (which the writes below lock), so the lock order of 0017 holds.
        let lock: (sql: String, parameters: [any PostgresEncodable]) = (
            "SELECT pg_advisory_xact_lock(hashtextextended('spotter-activity:' || $1::text, 0))", [tenant.rawValue]
        )
        return try await database.withTenant(tenant, opening: [lock]) { connection in
            // What the last round kept, the lifter's profile and the stored awards: one round trip.
            let read = try await connection.pipeline([
                (Self.keptSQL, [tenant.rawValue]),
                // The lifter's own row: the round runs in the lifter's transaction.
                (Self.profileSQL(own: true), [tenant.rawValue, now]),
                (Self.storedAwardsSQL, [tenant.rawValue]),
            ])
            let kept = try Self.kept(read[0], now: now)
            if onlyAfterChanges, kept?.quiet == true { return nil }
            let (facts, seq, timeZone, baselines) = try await Self.facts(
                tenant, profile: try Profile(read[1]), connection, kept: kept, cached: &cached)
            let list = evaluate(facts)
            let wanted = Dictionary(
                list.compactMap(\.earned).map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
            var stored = try read[2].map { row in
                StoredAward(
                    award: Award(
                        key: try row.decode("key"), earnedAt: try row.decode("earned_at"),
                        workoutID: WorkoutID(rawValue: try row.decode("workout_id"))),
                    awardedAt: try row.decode("awarded_at"))
            }
            let withdrawn = stored.map(\.award.key).filter { wanted[$0] == nil }
            let changed = wanted.values.filter { award in stored.first { $0.award.key == award.key }?.award != award }
            // The awards' changes and the state kept for the next round: one round trip.
            var writes: [(sql: String, parameters: [any PostgresEncodable])] = []
            if !withdrawn.isEmpty {
                writes.append((Self.withdrawSQL, [tenant.rawValue, withdrawn]))
            }
            if !changed.isEmpty {
                let sorted = changed.sorted { $0.key < $1.key }
                writes.append(
                    (
                        Self.awardSQL,
                        [
                            tenant.rawValue, sorted.map { Award.id(tenant, key: $0.key) }, sorted.map(\.key),
                            sorted.map(\.earnedAt), sorted.map(\.workoutID.rawValue), now,
                        ]
                    ))
            }
            writes.append(
                (
                    Self.keepSQL,
                    [
                        tenant.rawValue, seq, facts.tally.last?.startedAt, facts.tally.firstRecord?.id.rawValue,
                        facts.tally.firstRecord?.startedAt, now,
                    ]
                ))
            try await connection.pipeline(writes)
            learned(ActivityCache.Entry(feedSeq: seq, timeZone: timeZone, tally: facts.tally, baselines: baselines))
            if !withdrawn.isEmpty || !changed.isEmpty {
                let kept = Dictionary(
                    stored.map { ($0.award.key, $0.awardedAt) }, uniquingKeysWith: { first, _ in first })
                stored = wanted.values.map { StoredAward(award: $0, awardedAt: kept[$0.key] ?? now) }
            }
            return (list, stored.sorted { $0.award.key < $1.award.key })
        }
    }

    /// The tenant's (`$1`) stored awards.
    private static let storedAwardsSQL =
        "SELECT key, earned_at, workout_id, awarded_at FROM achievements WHERE tenant_id = $1"

    /// Withdraws the tenant's (`$1`) awards of keys `$2`.
    private static let withdrawSQL = "DELETE FROM achievements WHERE tenant_id = $1 AND key = ANY($2::text[])"

    /// Stores the tenant's (`$1`) awards: ids, keys, when earned and in which workout (`$2`–`$5`),
    /// awarded at `$6` when new.
    private static let awardSQL = """
        INSERT INTO achievements AS a (tenant_id, achievement_id, key, earned_at, workout_id, awarded_at)
        SELECT $1, id, key, earned_at, workout_id, $6
        FROM unnest($2::uuid[], $3::text[], $4::timestamptz[], $5::uuid[]) AS n (id, key, earned_at, workout_id)
        ON CONFLICT (tenant_id, key)
        DO UPDATE SET earned_at = excluded.earned_at, workout_id = excluded.workout_id
        """

    /// Keeps what a round read for the next (`Kept`): the feed's number, the latest start, the first
    /// record and when the round ran.
    private static let keepSQL = """
        INSERT INTO activity_kept AS a (tenant_id, feed_seq, last_start, first_record, first_record_at,
                                         reconciled_at)
        VALUES ($1, $2, $3, $4, $5, $6)
        ON CONFLICT (tenant_id) DO UPDATE
        SET feed_seq = excluded.feed_seq, last_start = excluded.last_start, first_record = excluded.first_record,
            first_record_at = excluded.first_record_at, reconciled_at = excluded.reconciled_at
        """

    /// The tenant's stored awards among `ids` (feed ids, `Award.id`), as the change feed sends them.
    static func achievements(_ tenant: TenantID, _ ids: [UUID], _ connection: PostgresConnection) async throws
        -> [(UUID, Achievement)]
    {
        let rows = try await connection.query(
            """
            SELECT a.achievement_id, a.key, a.earned_at, a.workout_id, a.awarded_at, c.challenge_id, c.name,
                   c.description, c.starts_on::text AS starts_on, c.ends_on::text AS ends_on, c.rule, c.target,
                   c.created_at, c.created_by
            FROM unnest($2::uuid[]) AS i (id)
            -- One primary-key lookup per id, whatever the statistics say of the tenant.
            CROSS JOIN LATERAL (SELECT * FROM achievements WHERE tenant_id = $1 AND achievement_id = i.id OFFSET 0) a
            LEFT JOIN challenges c ON a.key = 'challenge:' || c.challenge_id::text
            """,
            [tenant.rawValue, ids])
        return try rows.compactMap { row in
            let stored = StoredAward(
                award: Award(
                    key: try row.decode("key"), earnedAt: try row.decode("earned_at"),
                    workoutID: WorkoutID(rawValue: try row.decode("workout_id"))),
                awardedAt: try row.decode("awarded_at"))
            let challenge = try (row.decode("challenge_id") as UUID?).map { _ in try decodeChallenge(row) }
            return AchievementRules.earnedEntry(stored, challenge: challenge).map {
                (try! row.decode("achievement_id") as UUID, $0)
            }
        }
    }

    /// How to find the first record: read from scratch, known from the last reconciliation, or
    /// only among the sets of new workouts, none started before any old one (no record before).
    enum RecordLookup: Equatable {
        case full
        case known(ActivityRecord)
        case among([WorkoutID])
    }

    /// An exercise's first start and its best then, in one measure (`'heaviest'` or `'e1rm'`),
    /// as PostgreSQL computed them (the best as numeric text, so it goes back exact). While a
    /// lifter has no record, no later set beat them, so they still hold; the first record among
    /// new sets is the first that beats its exercise's baseline after its first start.
    struct RecordBaseline: Sendable, Equatable {
        var exerciseID: UUID
        var measure: String
        var firstMicros: Int64
        var best: String?
    }

    /// What the last reconciliation kept (`activity_kept`, Migrations/0068_activity_kept.sql);
    /// `nil` when there is none, it is a week old, or the feed's purged tombstones reach past it.
    struct Kept {
        var feedSeq: Int64
        var lastStart: Date?
        var firstRecord: ActivityRecord?
        /// No workout or profile change since `feedSeq`: nothing the awards depend on changed.
        var quiet = false

        /// How to find the first record when every change since is a new workout (`added`) started
        /// at or after `lastStart`: it is the one kept, or there was none and only the new workouts'
        /// sets can hold it. A new workout is not earlier than any old one, so it makes no old set a
        /// record, and it can only raise an exercise's best at its first start.
        func shortcut(_ added: [ActivityWorkout]) -> RecordLookup {
            firstRecord.map { .known($0) } ?? .among(added.map(\.id))
        }
    }

    /// A lifter's time zone, birthday (`MM-DD`) and today's local day (days since 1970-01-01), as
    /// `profileSQL` reads them.
    struct Profile {
        var timeZone: String
        var birthday: String?
        var today: Int

        init(_ rows: PostgresRows) throws {
            guard let row = rows.single else { throw SpotterError.notFound("tenant not found") }
            timeZone = try row.decode("time_zone")
            birthday = try row.decode("birthday")
            today = try row.decode("today")
        }
    }

    /// The profile of tenant `$1` on the day of instant `$2`: in the lifter's own transaction
    /// (`own`) from the lifter's row; anyone else (a coach's view) reads it through the function
    /// that checks the link, which costs about 0.2 ms more (`SECURITY DEFINER` with its own search
    /// path).
    static func profileSQL(own: Bool) -> String {
        let source =
            own
            ? "(SELECT time_zone, to_char(birthday, 'MM-DD') AS birthday FROM tenants WHERE tenant_id = $1) p"
            : "spotter_activity_profile($1)"
        return """
            SELECT time_zone, birthday, ($2::timestamptz AT TIME ZONE time_zone)::date - DATE '1970-01-01' AS today
            FROM \(source)
            """
    }

    /// What the last reconciliation kept (`$1` the tenant), and whether anything the awards depend
    /// on changed since (`Kept.quiet`); read by `kept(_:now:)`. The first such change is looked
    /// for in feed order (`sync_changes_seq_key`, from the kept number on): as `NOT EXISTS`, a plan
    /// made while the statistics knew of one large tenant read the whole feed table every round
    /// (they expected a third of it after any number, spread evenly).
    static let keptSQL = """
        SELECT a.feed_seq, a.last_start, a.first_record,
               (extract(epoch FROM a.first_record_at) * 1000000)::bigint AS first_record_us, a.reconciled_at,
               coalesce(c.purged_seq, 0) AS purged_seq,
               (SELECT s.seq FROM sync_changes s
                WHERE s.tenant_id = a.tenant_id AND s.seq > a.feed_seq AND s.kind IN ('workout', 'profile')
                ORDER BY s.seq LIMIT 1) IS NULL AS quiet
        FROM activity_kept a LEFT JOIN sync_counters c ON c.tenant_id = a.tenant_id
        WHERE a.tenant_id = $1
        """

    /// The kept state in `rows` (of `keptSQL`), `nil` when there is none or it no longer holds.
    static func kept(_ rows: PostgresRows, now: Date) throws -> Kept? {
        guard let row = rows.single else { return nil }
        let feedSeq: Int64 = try row.decode("feed_seq")
        let reconciledAt: Date = try row.decode("reconciled_at")
        guard feedSeq >= (try row.decode("purged_seq") as Int64), now.timeIntervalSince(reconciledAt) < 7 * 86_400
        else { return nil }
        var record: ActivityRecord?
        if let id = try row.decode("first_record") as UUID?, let micros = try row.decode("first_record_us") as Int64? {
            record = ActivityRecord(id: WorkoutID(rawValue: id), startedAt: instant(micros))
        }
        return Kept(
            feedSeq: feedSeq, lastStart: try row.decode("last_start"), firstRecord: record,
            quiet: try row.decode("quiet"))
    }

    /// The facts, and the feed's number as of the workouts read (one statement, so the two agree:
    /// a workout committed later is after that number). With `kept`, the first record may be known
    /// or looked for among new sets only (`Kept.shortcut`). `cached` is used up (`nil` after): when
    /// it matches `kept` and the lifter's settings, the new workouts are folded into its tally.
    static func facts(
        _ tenant: TenantID, profile: Profile, _ connection: PostgresConnection, kept: Kept?,
        cached: inout ActivityCache.Entry?
    ) async throws -> (facts: ActivityFacts, seq: Int64, timeZone: String, baselines: [RecordBaseline]?) {
        let timeZone = profile.timeZone
        /// The challenges that can be in the list: those ending on or after the first workout's day
        /// (or today, if earlier).
        func challenges(from first: ActivityWorkout?) -> (sql: String, parameters: [any PostgresEncodable]) {
            (
                Self.challengeSelect
                    + " WHERE ends_on >= DATE '1970-01-01' + $1::integer ORDER BY starts_on, challenge_id",
                [min(first?.localDay ?? profile.today, profile.today)]
            )
        }
        // With the tally the last round folded still in `cached`, a round whose only changes are
        // new workouts reads and folds those alone: the new workouts and the challenges in one
        // round trip.
        var lookup = RecordLookup.full
        var found: (seq: Int64, tally: ActivityTally)?
        var baselines: [RecordBaseline]?
        if let kept, var entry = cached.take(), entry.feedSeq == kept.feedSeq, entry.timeZone == timeZone,
            entry.tally.birthday == profile.birthday
        {
            let read = try await connection.pipeline([
                appended(tenant, kept, timeZone), challenges(from: entry.tally.first),
            ])
            if let (now, added) = try appended(read[0], kept),
                added.allSatisfy({ $0.startedAt >= entry.tally.latestStart ?? $0.startedAt }),
                try read[1].map(decodeChallenge) == entry.tally.challenges
            {
                for workout in added { entry.tally.add(workout) }
                found = (now, entry.tally)
                lookup = kept.shortcut(added)
                baselines = entry.baselines
            }
        }
        if found == nil {
            found = try await everything(tenant, timeZone, connection) { first in
                let (sql, parameters) = challenges(from: first)
                return ActivityTally(
                    birthday: profile.birthday,
                    challenges: try await connection.query(sql, parameters).map(decodeChallenge))
            }
            // Read after the workouts, so no change they include escapes it.
            if let kept {
                let (sql, parameters) = appended(tenant, kept, timeZone)
                if let (_, added) = try appended(try await connection.query(sql, parameters), kept) {
                    lookup = kept.shortcut(added)
                }
            }
        }
        var (seq, tally) = found!
        switch lookup {
        case .known(let record):
            tally.firstRecord = record
            baselines = nil
        case .among(let added) where added.isEmpty:
            // Nothing new since a round that found no record: still none, and the baselines hold.
            break
        case .among(let added):
            (tally.firstRecord, baselines) = try await recordAmong(tenant, added, baselines, connection)
        case .full:
            try await probesInIndexOrder(connection)
            tally.firstRecord = try await connection.query(firstRecord, [tenant.rawValue]).single.flatMap(record)
            baselines = nil
        }
        return (ActivityFacts(tally: tally, today: profile.today), seq, timeZone, baselines)
    }

    /// The first record among the sets of the new workouts `added` (none started before any old
    /// one, and no record before them), checked against the exercises' baselines, and the
    /// baselines to keep (`nil` once there is a record: it raises a best). Baselines kept from an
    /// earlier round are used unless a new set falls outside them (an exercise or measure new to
    /// the lifter, or a set at an exercise's first start, which can raise its best); then they are
    /// read again, new sets included, by one probe per exercise and measure.
    static func recordAmong(
        _ tenant: TenantID, _ added: [WorkoutID], _ kept: [RecordBaseline]?, _ connection: PostgresConnection
    ) async throws -> (ActivityRecord?, [RecordBaseline]?) {
        func check(_ baselines: [RecordBaseline]) async throws -> (outside: Bool, record: ActivityRecord?) {
            // The statement's generic plan: its shape fixes the plan, but with the arrays unknown its
            // estimated cost was higher than a plan for the ones given, so PostgreSQL planned it
            // afresh every round (0.55 ms, against 0.17 ms to run it;
            // `pg_stat_statements.track_planning` in the log scenario).
            let parameters: [any PostgresEncodable] = [
                tenant.rawValue, added.map(\.rawValue), baselines.map(\.exerciseID),
                baselines.map(\.measure), baselines.map(\.firstMicros), baselines.map(\.best),
            ]
            let row = try await connection.pipeline([(recordAmongNew, parameters)], planning: .generic)[0].single
            guard let row else { throw PostgresError(kind: .decoding, message: "no answer to the record check") }
            return (try row.decode("outside"), try record(row))
        }
        // A record raises a best: the baselines are kept only while there is none.
        func found(_ record: ActivityRecord?, _ baselines: [RecordBaseline]) -> (ActivityRecord?, [RecordBaseline]?) {
            (record, record == nil ? baselines : nil)
        }
        if let kept {
            let answer = try await check(kept)
            if !answer.outside { return found(answer.record, kept) }
        }
        try await probesInIndexOrder(connection)
        let baselines = try await connection.query(recordBaselines, [tenant.rawValue]).map { row in
            RecordBaseline(
                exerciseID: try row.decode("exercise_id"), measure: try row.decode("measure"),
                firstMicros: try row.decode("first_us"), best: try row.decode("best"))
        }
        // Read after the new sets: every set at a first start is in its best.
        return found(try await check(baselines).record, baselines)
    }

    /// The record in a row of `firstRecord` or `recordAmongNew` (`workout_id`, `started_us`), if any.
    private static func record(_ row: PostgresRow) throws -> ActivityRecord? {
        try (row.decode("workout_id") as UUID?).map {
            ActivityRecord(id: WorkoutID(rawValue: $0), startedAt: instant(try row.decode("started_us")))
        }
    }

    /// Every live workout's start folded into the tally `start` makes (given the first workout),
    /// and the feed's number as of them (one statement, so the two agree: a workout committed
    /// later is after that number). Integers, not timestamps: at 5,000 rows, parsing timestamp
    /// text was most of the read's cost in spotterd. `local_minutes` counts minutes of local
    /// wall-clock time since 1970-01-01 00:00, so the local date and time of day are a division
    /// away.
    ///
    /// Read through a cursor, `everythingBatch` rows at a time, each batch folded before the next
    /// is fetched: a long history (a load test's lifter logs hundreds of thousands of workouts)
    /// never sits in spotterd's memory, as rows or as a list.
    static func everything(
        _ tenant: TenantID, _ timeZone: String, _ connection: PostgresConnection, batch: Int = everythingBatch,
        start: (_ first: ActivityWorkout?) async throws -> ActivityTally
    ) async throws -> (seq: Int64, tally: ActivityTally) {
        try await connection.query(
            """
            DECLARE \(cursor) NO SCROLL CURSOR FOR
            SELECT w.workout_id, w.started_us, w.duration_seconds, w.local_minutes, c.feed_seq
            FROM \(feedSeq)
            LEFT JOIN LATERAL (
                SELECT workout_id, started_at, \(startColumns)
                FROM workouts WHERE tenant_id = $1 AND deleted_at IS NULL
            ) w ON true
            ORDER BY w.started_at, w.workout_id
            """,
            [tenant.rawValue, timeZone])
        var seq: Int64 = 0
        var tally: ActivityTally?
        do {
            while true {
                let rows = try await connection.query("FETCH \(batch) FROM \(cursor)")
                for row in rows {
                    seq = try row.decode(4)
                    let workout = try row.decode(0) as UUID? != nil ? try decodeWorkout(row) : nil
                    if tally == nil { tally = try await start(workout) }
                    if let workout { tally!.add(workout) }
                }
                if rows.count < batch { break }
            }
        } catch {
            // A failure on this side (a value that does not decode, cancellation) leaves the
            // transaction usable: the cursor goes, so a later read in it can declare it again.
            _ = try? await connection.execute("CLOSE \(cursor)")
            throw error
        }
        try await connection.query("CLOSE \(cursor)")
        // The feed's row comes even without a workout, so `start` has run already.
        if tally == nil { tally = try await start(nil) }
        return (seq, tally!)
    }

    static let everythingBatch = 5_000
    private static let cursor = "spotter_activity_workouts"

    /// The new workouts since `kept` and the feed's number as of them (one statement), when every
    /// change of a workout or the profile since is a new workout started at or after the latest
    /// one then; `nil` otherwise.
    private static func appended(_ rows: PostgresRows, _ kept: Kept) throws -> (
        seq: Int64, workouts: [ActivityWorkout]
    )? {
        let seq: Int64 = try rows.first?.decode(4) ?? 0
        // So many changes at once (an import) are read whole instead.
        guard rows.count < appendedLimit else { return nil }
        var added: [ActivityWorkout] = []
        for row in rows where try row.decode(5) as String? != nil {
            guard try row.decode(5) as String == "workout", try row.decode(6) as Int64? == 1,
                try row.decode(7) as Bool? == false
            else { return nil }
            let workout = try decodeWorkout(row)
            if let last = kept.lastStart, workout.startedAt < last { return nil }
            added.append(workout)
        }
        return (seq, added)
    }

    /// The statement whose rows `appended(_:_:)` reads: the changes since `kept`, in time zone
    /// `timeZone`.
    private static func appended(_ tenant: TenantID, _ kept: Kept, _ timeZone: String) -> (
        sql: String, parameters: [any PostgresEncodable]
    ) {
        (appendedSQL, [tenant.rawValue, kept.feedSeq, timeZone])
    }

    /// At most this many changes since the kept state are read one by one; with more, everything is.
    static let appendedLimit = 1_000

    /// `appended`'s statement (`$1` the tenant, `$2` the kept feed number, `$3` the time zone), built
    /// once.
    private static let appendedSQL = """
        SELECT w.workout_id, w.started_us, w.duration_seconds, w.local_minutes, c.feed_seq, w.kind, w.version,
               w.deleted
        FROM \(feedSeq)
        LEFT JOIN LATERAL (
            SELECT x.workout_id, x.started_at, \(startColumns.replacingOccurrences(of: "$2", with: "$3")),
                   s.kind, x.version, x.deleted_at IS NOT NULL AS deleted
            -- The first `appendedLimit` changes in feed order: a probe of `sync_changes_seq_key` from
            -- the kept number on (with `seq > $2` alone, a generic plan made while the statistics
            -- knew of one large tenant read the whole feed table).
            FROM (
                SELECT * FROM sync_changes
                WHERE tenant_id = $1 AND seq > $2 AND kind IN ('workout', 'profile')
                ORDER BY seq LIMIT \(appendedLimit)
            ) s
            -- One primary-key lookup per change, whatever the statistics say of the tenant
            -- (a plain join scanned all of a new tenant's workouts per change: WorkoutSQL.load).
            LEFT JOIN LATERAL (
                SELECT * FROM workouts
                WHERE s.kind = 'workout' AND tenant_id = s.tenant_id AND workout_id = s.object_id OFFSET 0
            ) x ON true
        ) w ON true
        ORDER BY w.started_at, w.workout_id
        """

    /// The tenant's (`$1`) feed number, as one row `c` to join a statement's rows to, so the number
    /// and the rows come from one snapshot.
    private static let feedSeq =
        "(SELECT coalesce((SELECT last_seq FROM sync_counters WHERE tenant_id = $1), 0) AS feed_seq) c"

    /// A workout's start as `decodeWorkout` reads it, from columns `started_at` and time zone `$2`.
    private static let startColumns = """
        (extract(epoch FROM started_at) * 1000000)::bigint AS started_us, duration_seconds,
                       floor(extract(epoch FROM started_at AT TIME ZONE $2) / 60)::bigint AS local_minutes
        """

    private static func decodeWorkout(_ row: PostgresRow) throws -> ActivityWorkout {
        let minutes: Int = try row.decode(3)
        let (day, minute) = minutes.quotientAndRemainder(dividingBy: 1440)
        return ActivityWorkout(
            id: WorkoutID(rawValue: try row.decode(0)), startedAt: instant(try row.decode(1)),
            durationSeconds: try row.decode(2), localDay: minute < 0 ? day - 1 : day,
            localMinute: minute < 0 ? minute + 1440 : minute)
    }

    /// Keeps `firstRecord`'s probes index scans stopped at their first row, for the rest of the
    /// transaction. The row estimates per lifter and exercise are averages over every lifter, so
    /// for a lifter with a long history the planner expected 3 sets where there were 27,605 and
    /// read them all through a bitmap and a sort (70 ms of a 72 ms statement, `auto_explain`).
    private static func probesInIndexOrder(_ connection: PostgresConnection) async throws {
        try await connection.query("SELECT set_config('enable_bitmapscan', 'off', true)")
    }

    /// An instant read as microseconds since 1970 (`extract(epoch FROM …) * 1000000`), the same
    /// `Date` whichever statement read it.
    private static func instant(_ micros: Int64) -> Date {
        Date(timeIntervalSince1970: Double(micros) / 1_000_000)
    }

    static let challengeSelect = """
        SELECT challenge_id, name, description, starts_on::text AS starts_on, ends_on::text AS ends_on, rule, target,
               created_at, created_by
        FROM challenges
        """

    static func decodeChallenge(_ row: PostgresRow) throws -> Challenge {
        Challenge(
            id: try row.decode("challenge_id"), name: try row.decode("name"),
            description: try row.decode("description"),
            startsOn: try row.decode("starts_on"), endsOn: try row.decode("ends_on"),
            rule: Challenge.Rule(rawValue: try row.decode("rule")) ?? .workouts, target: try row.decode("target"),
            createdAt: try row.decode("created_at"), createdBy: try row.decode("created_by"))
    }

    /// The first workout with a new personal record. A record is a working set (not a warm-up, at
    /// least one rep) heavier than every set of the same exercise in earlier workouts, or with a
    /// higher estimated one-rep max (as progress estimates it by default, `RecordSQL.e1rm`). Until an
    /// exercise's first record its best is what it did at its first start, so the first record of
    /// an exercise is its first later set above that: per exercise and measure, one probe for the
    /// first start, one for its best and one for the first set above it, each a short range of
    /// `workout_sets_exercise_idx` read in index order and stopped at the first match. The
    /// exercises are found by skipping through the same index (a recursive CTE), not by reading
    /// every set, and every step is materialized so the planner cannot turn the probes into a join
    /// over all of the lifter's sets. Sets at an exercise's first start (in one workout or two
    /// started at once) are never records.
    static let firstRecord =
        baselineSteps + """
            ,
            records AS MATERIALIZED (
                SELECT b.exercise_id, b.measure, b.best, r.started_at
                FROM bests b
                CROSS JOIN LATERAL (
                    SELECT s.started_at FROM workout_sets s
                    WHERE s.tenant_id = $1 AND s.exercise_id = b.exercise_id AND s.started_at > b.started_at
                      AND \(working) AND \(beats("b.measure", "b.best"))
                    ORDER BY s.started_at LIMIT 1
                ) r
            )
            SELECT s.workout_id, (extract(epoch FROM s.started_at) * 1000000)::bigint AS started_us
            FROM records r
            -- A probe per record (a join read all of the lifter's sets, or under a generic plan the table).
            CROSS JOIN LATERAL (
                SELECT * FROM workout_sets
                WHERE tenant_id = $1 AND exercise_id = r.exercise_id AND started_at = r.started_at OFFSET 0
            ) s
            WHERE \(working) AND \(beats("r.measure", "r.best"))
            ORDER BY s.started_at, s.workout_id LIMIT 1
            """

    /// Every exercise's baseline (`RecordBaseline`): its first start and its best then, per measure,
    /// by the same probes as `firstRecord`.
    static let recordBaselines =
        baselineSteps + """
            SELECT exercise_id, measure, (extract(epoch FROM started_at) * 1000000)::bigint AS first_us,
                   best::text AS best
            FROM bests
            """

    /// The first workout of `firstRecord` among the sets of the new workouts `$2` (found by the
    /// primary key), against the baselines `$3`–`$6` (exercise, measure, first start in
    /// microseconds, best), and whether any of those sets is `outside` them: of an exercise and
    /// measure they do not hold, or at an exercise's first start (where it counts toward the best).
    static let recordAmongNew = """
        WITH b AS (
            SELECT * FROM unnest($3::uuid[], $4::text[], $5::bigint[], $6::numeric[])
                AS b (exercise_id, measure, first_us, best)
        ),
        n AS MATERIALIZED (
            SELECT s.workout_id, s.exercise_id, s.started_at, s.weight_kg, s.reps, s.rpe, m.measure,
                   (extract(epoch FROM s.started_at) * 1000000)::bigint AS started_us
            FROM unnest($2::uuid[]) AS w (workout_id)
            CROSS JOIN LATERAL (
                SELECT * FROM workout_sets WHERE tenant_id = $1 AND workout_id = w.workout_id OFFSET 0
            ) s
            CROSS JOIN (VALUES ('heaviest'), ('e1rm')) AS m (measure)
            WHERE \(working) AND (m.measure = 'heaviest' OR \(e1rm) IS NOT NULL)
        )
        SELECT EXISTS (
                   SELECT FROM n LEFT JOIN b ON b.exercise_id = n.exercise_id AND b.measure = n.measure
                   WHERE b.exercise_id IS NULL OR n.started_us = b.first_us
               ) AS outside,
               r.workout_id, r.started_us
        FROM (SELECT) o
        LEFT JOIN LATERAL (
            SELECT s.workout_id, s.started_us
            FROM n s JOIN b ON b.exercise_id = s.exercise_id AND b.measure = s.measure
            WHERE s.started_us > b.first_us AND \(beats("b.measure", "b.best"))
            ORDER BY s.started_at, s.workout_id LIMIT 1
        ) r ON true
        """

    /// The steps `firstRecord` and `recordBaselines` share: every exercise of the lifter (`$1`),
    /// found by skipping through `workout_sets_exercise_idx`, its first start per measure
    /// (`firsts`) and its best then (`bests`).
    private static let baselineSteps = """
        WITH RECURSIVE lifts AS (
            (SELECT exercise_id FROM workout_sets WHERE tenant_id = $1 ORDER BY exercise_id LIMIT 1)
            UNION ALL
            SELECT (SELECT s.exercise_id FROM workout_sets s
                    WHERE s.tenant_id = $1 AND s.exercise_id > l.exercise_id ORDER BY s.exercise_id LIMIT 1)
            FROM lifts l WHERE l.exercise_id IS NOT NULL
        ),
        firsts AS MATERIALIZED (
            SELECT l.exercise_id, m.measure, f.started_at
            FROM lifts l
            CROSS JOIN (VALUES ('heaviest'), ('e1rm')) AS m (measure)
            CROSS JOIN LATERAL (
                SELECT s.started_at FROM workout_sets s
                WHERE s.tenant_id = $1 AND s.exercise_id = l.exercise_id AND \(working)
                  AND (m.measure = 'heaviest' OR \(e1rm) IS NOT NULL)
                ORDER BY s.started_at LIMIT 1
            ) f
            WHERE l.exercise_id IS NOT NULL
        ),
        bests AS MATERIALIZED (
            SELECT f.exercise_id, f.measure, f.started_at,
                   (SELECT max(CASE f.measure WHEN 'heaviest' THEN s.weight_kg ELSE \(e1rm) END)
                    FROM workout_sets s
                    WHERE s.tenant_id = $1 AND s.exercise_id = f.exercise_id AND s.started_at = f.started_at
                      AND \(working)) AS best
            FROM firsts f
        )
        """

    /// A set `s` that counts toward records: not a warm-up, with reps and a weight.
    private static let working = RecordSQL.working("s")
    /// The estimated one-rep max of set `s`, as progress gives it (reps in reserve counted);
    /// `NULL` where progress has no estimate.
    private static let e1rm = RecordSQL.e1rm("s")

    /// Whether set `s` beats `best` in `measure` (`'heaviest'` or `'e1rm'`).
    private static func beats(_ measure: String, _ best: String) -> String {
        "CASE \(measure) WHEN 'heaviest' THEN s.weight_kg > \(best) ELSE \(e1rm) > \(best) END"
    }
}
