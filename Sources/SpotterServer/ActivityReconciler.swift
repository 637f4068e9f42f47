import CoreMetrics
import Foundation
import Logging
import ServiceLifecycle
import SpotterCore
import SpotterPostgres

/// Keeps each lifter's stored achievements equal to what their history earns, so awards and
/// withdrawals reach devices through the change feed and Watch without anyone asking for the list.
///
/// After a transaction that changed a tenant's workouts or profile commits (a workout logged,
/// edited, deleted or pushed; the profile's time zone or birthday changed),
/// `SpotterDatabase.activityChanges` hands the tenant over; this loop waits `settling` (a quarter
/// of a second), then reconciles each tenant handed over, one at a time, off the calls' path
/// (`ActivityService.reconcile`: one transaction that reads the facts and writes only what
/// changed). Changes that arrive meanwhile fold into one more round per tenant, so a device pushing
/// a hundred workouts costs a round or two, not a hundred. Other changes (a body measurement, a
/// template, a guided session's set, the awards written here) cannot change awards and wake no
/// round. If the process stops first, the next change or the next `ListAchievements` catches up.
/// Each round's duration is the `spotter_activity_reconcile_seconds` histogram.
struct ActivityReconciler: Service {
    let mailbox: TenantMailbox
    let activity: ActivityService
    let metrics: ServerMetrics
    let logger: Logger
    var settling = Duration.milliseconds(250)

    func run() async throws {
        let timer = CoreMetrics.Timer(label: "spotter_activity_reconcile_seconds", factory: metrics.factory)
        await cancelWhenGracefulShutdown {
            await mailbox.deliver(settling: settling) { tenants in
                for tenant in tenants {
                    guard let id = UUID(hexadecimal: String(tenant)) else { continue }
                    do {
                        let started = ContinuousClock.now
                        try await activity.reconcile(TenantID(rawValue: id))
                        timer.recordInterval(ContinuousClock.now - started)
                    } catch {
                        logger.warning(
                            "achievement reconciliation failed; the next change retries it",
                            metadata: ["tenant": "\(tenant)", "error": "\(error)"])
                    }
                }
            }
        }
    }
}
