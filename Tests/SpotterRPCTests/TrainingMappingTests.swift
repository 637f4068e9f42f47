import SpotterCore
import SpotterProto
import Testing

@testable import SpotterRPC

@Suite("Training mapping")
struct TrainingMappingTests {
    @Test("a weight goes on the wire as the Double nearest its value in the lifter's unit")
    func weightOnTheWire() {
        #expect(Spotter_V1_Weight(Mass(micrograms: 58_780_000), .kg).value == 58.78)
        #expect(Spotter_V1_Weight(Mass(micrograms: 70_000), .kg).value == 0.07)
        #expect(Spotter_V1_Weight(kilograms: 102.0582, .lb).value == 225)
        #expect(Spotter_V1_Weight(Mass(micrograms: 58_780_000), .kg).unit == .kg)
    }
}
