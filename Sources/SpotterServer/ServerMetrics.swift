import CoreMetrics
import Foundation
import Postgres
import Prometheus
import SpotterCore
import SpotterRPC
import Synchronization

/// The process's metrics in one Prometheus registry. Counters and histograms are written through
/// swift-metrics (`factory`) where things happen; gauges of state (the pool, Watch streams, the
/// outbox backlog, the process) are sampled when the endpoint is scraped.
public final class ServerMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    public let factory: PrometheusMetricsFactory
    private let samplers = Mutex<[@Sendable () async -> Void]>([])

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Calls and statements take from well under a millisecond to seconds.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
            .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
        ]
        self.factory = factory
    }

    /// Runs `sample` before every scrape, to set gauges of state.
    public func sampleOnScrape(_ sample: @escaping @Sendable () async -> Void) {
        samplers.withLock { $0.append(sample) }
    }

    /// The Prometheus text exposition of every metric, after sampling.
    public func scrape() async -> [UInt8] {
        for sample in samplers.withLock({ $0 }) { await sample() }
        return registry.emitToBuffer()
    }

    /// A gauge set to `value` (swift-metrics' non-aggregating recorder).
    func set(_ name: String, _ dimensions: [(String, String)] = [], to value: Int) {
        Recorder(label: name, dimensions: dimensions, aggregate: false, factory: factory).record(value)
    }

    /// Samples the pool's connections (open, idle, in use) and the checkouts waiting for one.
    func samplePool(_ pool: PostgresPool, name: String) {
        sampleOnScrape { [self] in
            let statistics = await pool.statistics()
            let pool = [("pool", name)]
            set("spotter_db_pool_connections", pool + [("state", "idle")], to: statistics.idle)
            set("spotter_db_pool_connections", pool + [("state", "in_use")], to: statistics.inUse)
            set("spotter_db_pool_max_connections", pool, to: statistics.maxConnections)
            set("spotter_db_pool_waiting", pool, to: statistics.waiting)
        }
    }

    /// Samples the process's resident memory and open file descriptors from `/proc/self`.
    func sampleProcess() {
        sampleOnScrape { [self] in
            if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
            {
                set("spotter_process_resident_memory_bytes", to: kilobytes * 1024)
            }
            if let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") {
                set("spotter_process_open_fds", to: descriptors.count)
            }
        }
    }
}

extension PostgresPool.Observer {
    /// Records checkout waits and statement durations as histograms of `metrics`, labelled with
    /// the pool's name.
    static func recording(into metrics: ServerMetrics, pool name: String) -> PostgresPool.Observer {
        let checkout = CoreMetrics.Timer(
            label: "spotter_db_checkout_seconds", dimensions: [("pool", name)], factory: metrics.factory)
        let statement = CoreMetrics.Timer(
            label: "spotter_db_statement_seconds", dimensions: [("pool", name)], factory: metrics.factory)
        return PostgresPool.Observer(
            checkedOut: { checkout.recordInterval($0) }, statementFinished: { statement.recordInterval($0) })
    }
}
