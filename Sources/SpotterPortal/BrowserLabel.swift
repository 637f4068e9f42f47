/// A portal session's device label from the browser's `User-Agent`: "Web portal · Firefox on
/// Windows", so the sessions list tells a laptop from a phone. Only the browser's family and the
/// system are kept, never the versions; anything not recognised is "Web portal".
enum BrowserLabel {
    static func label(userAgent: String?) -> String {
        guard let agent = userAgent, !agent.isEmpty else { return "Web portal" }
        let browser = browsers.first { marker, _ in agent.contains(marker) }?.1
        let system = systems.first { marker, _ in agent.contains(marker) }?.1
        switch (browser, system) {
        case (let browser?, let system?): return "Web portal · \(browser) on \(system)"
        case (let browser?, nil): return "Web portal · \(browser)"
        case (nil, let system?): return "Web portal · \(system)"
        case (nil, nil): return "Web portal"
        }
    }

    /// In the order they are looked for: Edge and Opera say "Chrome" too, Chrome says "Safari".
    private static let browsers: [(String, String)] = [
        ("Edg/", "Edge"), ("EdgiOS/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung Internet"),
        ("Firefox/", "Firefox"), ("FxiOS/", "Firefox"), ("Chrome/", "Chrome"), ("CriOS/", "Chrome"),
        ("Safari/", "Safari"),
    ]

    /// iPhones and Android phones say "like Mac OS X" and "Linux" too, so they come first.
    private static let systems: [(String, String)] = [
        ("iPhone", "iPhone"), ("iPad", "iPad"), ("Android", "Android"), ("CrOS", "ChromeOS"),
        ("Windows", "Windows"), ("Mac OS X", "macOS"), ("Macintosh", "macOS"), ("Linux", "Linux"),
    ]
}
