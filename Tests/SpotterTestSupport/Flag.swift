import Synchronization

/// A flag set on one thread (a Dispatch worker, say) and read on another.
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public func set() { value.store(true, ordering: .relaxed) }

    public var isSet: Bool { value.load(ordering: .relaxed) }
}
