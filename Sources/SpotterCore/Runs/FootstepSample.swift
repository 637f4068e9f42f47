import Foundation

/// One detected footstep, as the app sends it.
public struct FootstepSample: Sendable, Equatable, Codable {
    /// Milliseconds since the run's start (the run's `started_at`); 0 or more.
    public var offsetMilliseconds: Int64
    /// WGS84 degrees, given with `longitude` or not at all.
    public var latitude: Double?
    /// WGS84 degrees, given with `latitude` or not at all.
    public var longitude: Double?
    /// Direction of travel in degrees clockwise from north, 0 up to 360, when the device has a compass.
    public var headingDegrees: Double?

    public init(
        offsetMilliseconds: Int64, latitude: Double? = nil, longitude: Double? = nil, headingDegrees: Double? = nil
    ) {
        self.offsetMilliseconds = offsetMilliseconds
        self.latitude = latitude
        self.longitude = longitude
        self.headingDegrees = headingDegrees
    }

    /// Both coordinates, when the footstep has them.
    var position: GeoPoint? {
        guard let latitude, let longitude else { return nil }
        return GeoPoint(latitude: latitude, longitude: longitude)
    }
}

/// A point on the WGS84 ellipsoid, measured on a sphere of the Earth's mean radius: over the tens
/// of metres a run's rules look at, that is within 0.5 % of the ellipsoid.
struct GeoPoint: Sendable, Equatable {
    static let earthRadiusMeters = 6_371_008.8

    var latitude: Double
    var longitude: Double

    /// Great-circle metres to `other` (haversine).
    func meters(to other: GeoPoint) -> Double {
        let phi1 = latitude * .pi / 180
        let phi2 = other.latitude * .pi / 180
        let dPhi = phi2 - phi1
        let dLambda = (other.longitude - longitude) * .pi / 180
        let a = sin(dPhi / 2) * sin(dPhi / 2) + cos(phi1) * cos(phi2) * sin(dLambda / 2) * sin(dLambda / 2)
        return 2 * Self.earthRadiusMeters * asin(min(1, a.squareRoot()))
    }

    /// The initial bearing to `other`, degrees clockwise from north, 0 up to 360.
    func bearing(to other: GeoPoint) -> Double {
        let phi1 = latitude * .pi / 180
        let phi2 = other.latitude * .pi / 180
        let dLambda = (other.longitude - longitude) * .pi / 180
        let y = sin(dLambda) * cos(phi2)
        let x = cos(phi1) * sin(phi2) - sin(phi1) * cos(phi2) * cos(dLambda)
        return Angle.normalized(atan2(y, x) * 180 / .pi)
    }
}

/// Degrees on the compass.
enum Angle {
    /// `degrees` in 0 up to 360.
    static func normalized(_ degrees: Double) -> Double {
        let value = degrees.truncatingRemainder(dividingBy: 360)
        let positive = value < 0 ? value + 360 : value
        // -1e-15 + 360 rounds to 360.
        return positive >= 360 ? 0 : positive
    }

    /// The turn from `from` to `to`, -180 up to 180 inclusive; positive is clockwise.
    static func turn(from: Double, to: Double) -> Double {
        let value = normalized(to - from)
        return value > 180 ? value - 360 : value
    }
}
