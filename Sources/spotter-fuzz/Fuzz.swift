import Foundation
import Postgres
import SpotterRPC

/// Every target: the request targets of `FuzzTargets`, and `rows`.
let targets = FuzzTargets.names + ["rows"]

/// Runs `target` on `data`.
func run(_ target: String, _ data: [UInt8]) {
    if target == "rows" { rows(data) } else { FuzzTargets.run(target, data) }
}

/// The text cells libpq hands back, through every decoder the stores use.
func rows(_ data: [UInt8]) {
    let text = String(decoding: data, as: UTF8.self)
    _ = try? Bool.decode(postgresText: text)
    _ = try? Int.decode(postgresText: text)
    _ = try? Int64.decode(postgresText: text)
    _ = try? Int32.decode(postgresText: text)
    _ = try? Double.decode(postgresText: text)
    _ = try? Decimal.decode(postgresText: text)
    _ = try? Date.decode(postgresText: text)
    _ = try? UUID.decode(postgresText: text)
    _ = try? PostgresBytes.decode(postgresText: text)
}

// One binary, two ways to run:
// - built by scripts/fuzz.sh with `-sanitize=fuzzer` (and -DFUZZING), libFuzzer drives
//   `LLVMFuzzerTestOneInput` below, on the target named by SPOTTER_FUZZ_TARGET;
// - built normally, `spotter-fuzz replay TARGET FILE...` runs files (corpus entries, crash
//   reproducers) through a target once each.

#if FUZZING
    private let target: String = {
        let name = ProcessInfo.processInfo.environment["SPOTTER_FUZZ_TARGET"] ?? ""
        guard targets.contains(name) else {
            FileHandle.standardError.write(
                Data("SPOTTER_FUZZ_TARGET must be one of \(targets.joined(separator: ", "))\n".utf8))
            exit(2)
        }
        return name
    }()

    @_cdecl("LLVMFuzzerTestOneInput")
    public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
        run(target, Array(UnsafeBufferPointer(start: data, count: size)))
        return 0
    }

    @_silgen_name("LLVMFuzzerRunDriver")
    private func runDriver(
        _ argc: UnsafeMutablePointer<CInt>,
        _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
        _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt

    /// SwiftPM links an executable's entry point as `<module>_main`: hand over to libFuzzer's driver.
    @_cdecl("spotter_fuzz_main")
    public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
        var count = argc
        var arguments = argv
        return runDriver(&count, &arguments) { data, size in
            run(target, Array(UnsafeBufferPointer(start: data, count: size)))
            return 0
        }
    }
#else
    @main
    struct Main {
        static func main() {
            let arguments = Array(CommandLine.arguments.dropFirst())
            guard arguments.count >= 2, ["replay", "mutate"].contains(arguments[0]), targets.contains(arguments[1])
            else { usage() }
            let target = arguments[1]
            if arguments[0] == "replay" {
                let inputs = read(arguments.dropFirst(2))
                for input in inputs { run(target, input) }
                print("replayed \(inputs.count) inputs through \(target)")
                return
            }
            var seconds = 10.0
            var seed = UInt64.random(in: 1...UInt64.max)
            var crashPath = "spotter-fuzz-crash-\(target)"
            var files: [String] = []
            var rest = arguments.dropFirst(2)
            while let argument = rest.popFirst() {
                switch argument {
                case "--seconds": seconds = rest.popFirst().flatMap(Double.init) ?? { usage() }()
                case "--seed": seed = rest.popFirst().flatMap { UInt64($0) } ?? { usage() }()
                case "--crash": crashPath = rest.popFirst() ?? { usage() }()
                default: files.append(argument)
                }
            }
            let seeds = read(files[...])
            guard !seeds.isEmpty else { usage() }
            CrashCapture.install(path: crashPath, target: target)
            var mutator = Mutator(seed: seed)
            let started = ContinuousClock.now
            var count = 0
            while ContinuousClock.now - started < .seconds(seconds) {
                for _ in 0..<100 {
                    let input = mutator.mutate(seeds[Int(mutator.next() % UInt64(seeds.count))], seeds: seeds)
                    CrashCapture.current(input)
                    run(target, input)
                    count += 1
                }
            }
            print("mutated \(count) inputs through \(target) in \(Int(seconds)) s (seed \(seed)): no trap")
        }

        static func usage() -> Never {
            print(
                """
                usage: spotter-fuzz replay TARGET FILE...
                       spotter-fuzz mutate TARGET [--seconds 10] [--seed N] [--crash PATH] SEED_FILE...
                TARGET: \(targets.joined(separator: "|"))
                """)
            exit(2)
        }

        static func read(_ paths: ArraySlice<String>) -> [[UInt8]] {
            paths.map { path in
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("spotter-fuzz: cannot read \(path)")
                    exit(1)
                }
                return Array(data)
            }
        }
    }

    /// Random changes to seed inputs, in the spirit of libFuzzer's mutators but without coverage
    /// feedback: the short in-suite check for traps between the long `scripts/fuzz.sh` runs.
    struct Mutator {
        private var state: UInt64
        /// Values that break unchecked arithmetic, as protobuf varints (Int64.max, Int64.min, -1,
        /// UInt32.max) and as single bytes.
        private static let varints: [[UInt8]] = [
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f],
            [0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
            [0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01],
            [0xff, 0xff, 0xff, 0xff, 0x0f],
        ]
        private static let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xff, 0x2e, 0x3a, 0x2d]

        init(seed: UInt64) { state = seed }

        /// splitmix64.
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        private mutating func below(_ bound: Int) -> Int { bound <= 0 ? 0 : Int(next() % UInt64(bound)) }

        mutating func mutate(_ input: [UInt8], seeds: [[UInt8]]) -> [UInt8] {
            var data = input
            for _ in 0...below(4) {
                let at = below(data.count + 1)
                switch below(7) {
                case 0 where !data.isEmpty:
                    let index = below(data.count)
                    data[index] ^= 1 << UInt8(below(8))
                case 1 where !data.isEmpty:
                    data[below(data.count)] = UInt8(truncatingIfNeeded: next())
                case 2 where !data.isEmpty:
                    data[below(data.count)] = Self.bytes[below(Self.bytes.count)]
                case 3:
                    data.insert(contentsOf: (0...below(8)).map { _ in UInt8(truncatingIfNeeded: next()) }, at: at)
                case 4 where !data.isEmpty:
                    data.removeSubrange(at..<min(data.count, at + 1 + below(16)))
                case 5:
                    let other = seeds[below(seeds.count)]
                    data = Array(data[..<at]) + other[below(other.count + 1)...]
                default:
                    let varint = Self.varints[below(Self.varints.count)]
                    data.replaceSubrange(at..<min(data.count, at + varint.count), with: varint)
                }
            }
            return data.count > 65_536 ? Array(data.prefix(65_536)) : data
        }
    }

    /// Saves the input being run when the process traps, so the crash can be replayed: the input is
    /// copied to a buffer before each run, and a signal handler writes it out with only
    /// async-signal-safe calls (open, write, close, _exit).
    enum CrashCapture {
        nonisolated(unsafe) private static let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 65_536)
        nonisolated(unsafe) private static var length = 0
        nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
        nonisolated(unsafe) private static var message: UnsafeMutablePointer<CChar>?

        static func install(path file: String, target: String) {
            path = strdup(file)
            message = strdup(
                "spotter-fuzz: \(target) trapped; the input is in \(file) (spotter-fuzz replay \(target) \(file))\n")
            for signal in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
                Glibc.signal(signal) { _ in
                    let descriptor = open(CrashCapture.path!, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
                    _ = write(descriptor, CrashCapture.buffer, CrashCapture.length)
                    close(descriptor)
                    _ = write(2, CrashCapture.message!, strlen(CrashCapture.message!))
                    _exit(77)
                }
            }
        }

        static func current(_ input: [UInt8]) {
            input.withUnsafeBufferPointer { bytes in
                if let base = bytes.baseAddress { buffer.update(from: base, count: bytes.count) }
            }
            length = input.count
        }
    }
#endif
