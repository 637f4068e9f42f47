import Foundation

/// Reads a `spotter-export` document: its custom exercises, templates and workouts keep their
/// ids (ids are per account), so importing an export into the account it came from adds
/// nothing, and into a new account reproduces it.
enum SpotterJSONReader {
    static func read(_ data: Data) throws(SpotterError) -> ImportedFile {
        struct Envelope: Decodable {
            var format: String?
            var version: Int?
        }
        let decoder = TenantExport.decoder()
        guard let envelope = try? decoder.decode(Envelope.self, from: data) else {
            throw .invalid("data", "is not a JSON object (expected a Spotter export)")
        }
        guard envelope.format == "spotter-export" else {
            throw .invalid("data", "is not a Spotter export (its \"format\" must be \"spotter-export\")")
        }
        guard let version = envelope.version, version <= TenantExport.currentVersion else {
            throw .invalid(
                "data",
                "is a Spotter export of version \(envelope.version.map(String.init) ?? "?"); this server reads up to version \(TenantExport.currentVersion)"
            )
        }
        // Only what an import stores is read: the profile, sessions and coaching belong to the
        // account the export came from.
        struct Document: Decodable {
            struct Owner: Decodable { var tenantID: TenantID? }
            struct Coaching: Decodable { var programs: [Program]? }
            var profile: Owner?
            var exercises: [Exercise]?
            var templates: [ExportedTemplate]?
            var workouts: [ExportedWorkout]?
            var measurements: [BodyMeasurement]?
            var coaching: Coaching?
        }
        let document: Document
        do {
            document = try decoder.decode(Document.self, from: data)
        } catch {
            throw .invalid("data", "is not a readable Spotter export: \(Self.describe(error))")
        }
        // Weights become exact masses here, so their range is checked first (only a file edited by
        // hand can be out of it).
        for (w, workout) in (document.workouts ?? []).enumerated() {
            for (e, entry) in workout.exercises.enumerated() {
                for (s, set) in entry.sets.enumerated() where set.weightKg.map({ !(0...2000).contains($0) }) ?? false {
                    throw .invalid(
                        "data", "workouts[\(w)].exercises[\(e)].sets[\(s)].weight_kg must be between 0 and 2000")
                }
            }
        }
        let workouts = (document.workouts ?? []).map { workout in
            ImportedWorkout(
                key: workout.id.description, name: workout.name, startedAt: workout.startedAt,
                durationSeconds: workout.durationSeconds, notes: workout.notes,
                entries: workout.exercises.map { entry in
                    ImportedWorkout.Entry(
                        name: entry.exerciseName, exerciseID: entry.exerciseID, notes: entry.notes,
                        sets: entry.sets.map { set in
                            ImportedSet(
                                reps: set.reps ?? 0, weight: set.weightKg.map { Mass(kilograms: $0) },
                                rpe: set.rpe, restSeconds: set.restSeconds, note: set.note, type: set.type,
                                durationSeconds: set.durationSeconds, distanceMeters: set.distanceMeters)
                        },
                        section: entry.section, circuit: entry.circuit ?? 0)
                },
                id: workout.id, templateID: workout.templateID)
        }
        // A run comes back as its workout (its minutes and distance); its footsteps are the export's.
        let runs = (document.workouts ?? []).filter { $0.run != nil }.count
        return ImportedFile(
            workouts: workouts, customExercises: document.exercises ?? [], templates: document.templates ?? [],
            // Its own programs only: a coach's assigned to it are the coach's.
            programs: (document.coaching?.programs ?? []).filter { $0.ownerID == document.profile?.tenantID },
            measurements: document.measurements ?? [],
            notes: runs == 0
                ? []
                : [
                    "\(runs == 1 ? "1 run comes in as a workout" : "\(runs) runs come in as workouts"): "
                        + "footsteps, positions and the run analysis are not imported"
                ])
    }

    /// Where decoding failed, as a path of keys.
    private static func describe(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
                .trimmingCharacters(in: CharacterSet(charactersIn: "."))
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context):
            return "\(path(context)).\(key.stringValue) is missing".trimmingCharacters(
                in: CharacterSet(charactersIn: "."))
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context)): \(context.debugDescription)"
        default:
            return "\(error)"
        }
    }
}
