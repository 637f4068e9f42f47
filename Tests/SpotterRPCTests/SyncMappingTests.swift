import SpotterCore
import SpotterProto
import Testing

@testable import SpotterRPC

/// The sync enums map by position (`CaseIterable.proto()`); this checks each pair by name.
@Suite("Sync enum mapping")
struct SyncMappingTests {
    @Test("every sync kind, mutation status and watch event maps to the proto case of the same name")
    func namesMatch() {
        for kind in SyncKind.allCases {
            let proto: Spotter_V1_SyncKind = kind.proto()
            #expect("\(proto)" == kind.rawValue)
            #expect(SyncKind(proto: proto) == kind)
        }
        for status in MutationResult.Status.allCases {
            let proto: Spotter_V1_MutationResult.Status = status.proto()
            #expect("\(proto)" == status.rawValue)
        }
        for event in SyncWatchHub.Event.allCases {
            let proto: Spotter_V1_WatchEvent.Reason = event.proto()
            #expect("\(proto)" == "\(event)")
        }
        #expect(SyncKind(proto: Spotter_V1_SyncKind.unspecified) == nil)
    }

    @Test("body metrics and units, achievement groups and workout sections map to the proto case of the same name")
    func activityAndBodyNamesMatch() {
        func camel(_ text: String) -> String {
            let parts = text.split(separator: "_")
            return ([String(parts[0])] + parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() })
                .joined()
        }
        for metric in BodyMetric.allCases {
            let proto: Spotter_V1_BodyMetric = metric.proto()
            #expect("\(proto)" == camel(metric.rawValue))
        }
        for unit in BodyUnit.allCases {
            let proto: Spotter_V1_BodyUnit = unit.proto()
            #expect("\(proto)" == unit.rawValue)
        }
        for group in AchievementGroup.allCases {
            let proto: Spotter_V1_AchievementGroup = group.proto()
            #expect("\(proto)" == group.rawValue)
        }
        for section in WorkoutSection.allCases {
            let proto: Spotter_V1_WorkoutSection = section.proto()
            #expect("\(proto)" == camel(section.rawValue))
            #expect(WorkoutSection(proto: proto) == section)
        }
        #expect(WorkoutSection(proto: Spotter_V1_WorkoutSection.unspecified) == nil)
    }
}
