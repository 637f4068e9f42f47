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
    struct Replay {
        static func main() {
            let arguments = CommandLine.arguments.dropFirst()
            guard arguments.count >= 2, arguments.first == "replay", targets.contains(arguments.dropFirst().first!)
            else {
                print("usage: spotter-fuzz replay \(targets.joined(separator: "|")) FILE...")
                exit(2)
            }
            let target = arguments.dropFirst().first!
            var count = 0
            for path in arguments.dropFirst(2) {
                guard let data = FileManager.default.contents(atPath: path) else {
                    print("spotter-fuzz: cannot read \(path)")
                    exit(1)
                }
                run(target, Array(data))
                count += 1
            }
            print("replayed \(count) inputs through \(target)")
        }
    }
#endif
