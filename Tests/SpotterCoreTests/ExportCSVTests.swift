import Foundation
import SpotterTestSupport
import Testing

@testable import SpotterCore

@Suite("CSV exports of templates and body measurements")
struct ExportCSVTests {
    @Test("a template item's row: a range, a load in both units; a timed item has no reps, not 0")
    func templateRows() {
        let template = Template(
            id: TemplateID(rawValue: UUID()),
            content: TemplateContent(
                name: "Lower, \"A\"", notes: "",
                items: [
                    TemplateItem(
                        exerciseID: Catalog.squat, targetSets: 5, repsMin: 3, repsMax: 5,
                        targetLoad: .weight(Mass(225, .lb))),
                    TemplateItem(
                        exerciseID: Catalog.squat, targetSets: 3, repsMin: 0, repsMax: 0, targetDurationSeconds: 60),
                ]),
            archivedAt: nil, version: 2, createdAt: Date(), updatedAt: Date(),
            exerciseNames: [Catalog.squat: "Barbell Back Squat"])
        let rows = ExportCSV.templateRows(ExportedTemplate(template)).split(separator: "\r\n").map(String.init)
        #expect(rows.count == 2)
        #expect(rows[0].contains(#","Lower, ""A""",,no,2,1,"#), "\(rows[0])")
        let kilograms = Mass(225, .lb).value(in: .kg)
        #expect(rows[0].hasSuffix(",Barbell Back Squat,5,3,5,,,,,\(kilograms),225,,,main,0"), "\(rows[0])")
        #expect(rows[1].hasSuffix(",Barbell Back Squat,3,,,,,60,,,,,,main,0"), "\(rows[1])")
    }

    @Test("a measurement's row: as stored, and in the lifter's units")
    func measurementRows() {
        func row(_ metric: BodyMetric, _ value: Decimal, _ unit: WeightUnit) -> String {
            ExportCSV.measurementRow(
                BodyMeasurement(
                    id: MeasurementID(rawValue: UUID()), metric: metric, measuredOn: "2026-11-28", value: value,
                    note: "",
                    version: 1, createdAt: Date(), updatedAt: Date()),
                unit: unit)
        }
        #expect(row(.bodyWeight, 78.2, .lb).hasPrefix("2026-11-28,body_weight,78.2,kg,172.4,lb,,"))
        #expect(row(.waist, 82.55, .lb).hasPrefix("2026-11-28,waist,82.55,cm,32.5,in,,"))
        #expect(row(.bodyFat, 14.5, .lb).hasPrefix("2026-11-28,body_fat,14.5,percent,14.5,percent,,"))
        #expect(row(.bodyWeight, 78.2, .kg).hasPrefix("2026-11-28,body_weight,78.2,kg,78.2,kg,,"))
    }
}
