import Mustache

// The rows that pages repeat many times answer their template's field lookups themselves.
//
// swift-mustache finds `{{name}}` in a value with `Mirror` unless the value is a `MustacheParent`;
// a Mirror lookup builds the value's whole list of children, so a page of 200 client rows or a
// year of progress points spent more than half of its time there (perf, Benchmarks/portal.sh).
// Each `child(named:)` lists the fields its template reads; `nil` sends the lookup on up the
// context stack, as Mirror does for a name the value lacks. An optional field without a value
// answers `false` (what a section of it needs: nothing to render) so that the lookup stops at the
// row instead of reflecting over the page above it, once per row.

/// An optional field as a lookup answers it: its value, or `false` when it has none.
func section<Value>(_ value: Value?) -> Any { value.map { $0 as Any } ?? false }

extension CoachRoutes.ClientsPage.Row: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "id": id
        case "name": name
        case "lastWorkout": lastWorkout
        case "thisWeek": thisWeek
        case "streak": streak
        case "inactive": inactive
        case "newRecord": section(newRecord)
        case "paused": section(paused)
        default: nil
        }
    }
}

extension CoachRoutes.ClientsPage.Invite: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "id": id
        case "note": note
        case "created": created
        case "state": state
        case "open": open
        default: nil
        }
    }
}

extension CoachRoutes.HistoryPage.Entry: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "href": href
        case "date": date
        case "name": name
        case "line": line
        default: nil
        }
    }
}

extension CoachRoutes.WorkoutPage.SetRow: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "label": label
        case "warmup": warmup
        case "weight": weight
        case "reps": reps
        case "timed": timed
        case "rpe": rpe
        case "note": note
        default: nil
        }
    }
}

extension CoachRoutes.ProgressPage.Report.Point: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "date": date
        case "e1rm": e1rm
        case "how": how
        case "from": section(from)
        case "topSet": topSet
        case "volume": volume
        case "sets": sets
        default: nil
        }
    }
}

extension CoachRoutes.StatisticsPage.Bucket: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "start": start
        case "workouts": workouts
        case "minutes": minutes
        case "sets": sets
        case "volume": volume
        case "muscles": muscles
        default: nil
        }
    }
}

extension LifterRoutes.AccessLogPage.Entry: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "when": when
        case "coach": coach
        case "what": what
        default: nil
        }
    }
}

extension PlanRoutes.TemplateEditor.Row: MustacheParent {
    func child(named field: String) -> Any? {
        switch field {
        case "index": index
        case "exercise": exercise
        case "exerciseName": exerciseName
        case "sets": sets
        case "repsMin": repsMin
        case "repsMax": repsMax
        case "rpe": rpe
        case "rest": rest
        case "notes": notes
        case "time": time
        case "distance": distance
        case "load": load
        case "sections": sections
        case "circuit": circuit
        // Without an error of its own a row must not show the page's error (`{{#error}}`) again.
        case "error": section(error)
        case "first": first
        case "last": last
        default: nil
        }
    }
}

/// An empty string is false in a section, as in other Mustache implementations: `{{#note}} ·
/// {{note}}{{/note}}` shows nothing for a note nobody wrote. (swift-mustache takes any string as
/// true.) Rendering is unchanged and still escaped.
extension String: @retroactive MustacheCustomRenderable {
    public var renderText: String { self }
    public var isNull: Bool { isEmpty }
}
