import Crypto
import Foundation
import Hummingbird

/// The portal's static files, compiled in: one stylesheet, the icon, the sign-up form's time-zone script, the sign-in
/// form's script keeping a link's fragment, and the program editor's naming each chosen day in full. Pages link them with
/// `?v=<version>` (a hash of their content), so browsers may keep them for a year.
enum Assets {
    static let files: [String: (type: String, body: String)] = [
        "portal.css": ("text/css; charset=utf-8", stylesheet),
        "icon.svg": ("image/svg+xml", icon),
        "time-zone.js": ("text/javascript; charset=utf-8", timeZoneScript),
        "sign-in.js": ("text/javascript; charset=utf-8", signInScript),
        "program-editor.js": ("text/javascript; charset=utf-8", programEditorScript),
    ]

    /// Fills an empty time-zone field (`data-browser-time-zone`, the sign-up form) with the
    /// browser's own zone when the server knows it (it is in the field's list; a browser that
    /// cannot tell says "Etc/Unknown"); without scripts the field stays as typed.
    static let timeZoneScript = """
        document.querySelectorAll("input[data-browser-time-zone]").forEach(function (field) {
          if (field.value || !field.list) { return; }
          var zone = "";
          try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone || ""; } catch (error) { return; }
          var known = Array.prototype.some.call(field.list.options, function (option) { return option.value === zone; });
          if (known) { field.value = zone; }
        });
        """

    /// A link to a part of a page (an e-mail's `…/workouts/…#comments`) that had to sign in first
    /// leads back to that part: the fragment stays in the browser's address, never in a request, so
    /// the sign-in form adds it to where signing in leads. Without scripts the page opens at its top.
    static let signInScript = """
        var fragment = window.location.hash;
        if (/^#[A-Za-z0-9_-]{1,64}$/.test(fragment)) {
          document.querySelectorAll("input[name=next]").forEach(function (field) {
            if (field.value.indexOf("#") < 0) { field.value += fragment; }
          });
        }
        """

    /// A day's template name is cut in its narrow menu, so the whole name stands under it
    /// (`.day-name`, filled by the server for the days as saved); this keeps it in step with the menu
    /// while the coach picks. Without scripts it shows the saved choice until the program is saved.
    static let programEditorScript = """
        document.querySelectorAll("table.program select[data-name]").forEach(function (menu) {
          menu.addEventListener("change", function () {
            var name = document.getElementById(menu.getAttribute("data-name"));
            if (!name) { return; }
            name.textContent = menu.value ? menu.options[menu.selectedIndex].text : "";
          });
        });
        """

    static let version: String = {
        let all = files.keys.sorted().map { files[$0]!.body }.joined()
        return SHA256.hash(data: Array(all.utf8)).prefix(6).map { String(format: "%02x", $0) }.joined()
    }()

    static func response(_ name: String) -> Response? {
        guard let file = files[name] else { return nil }
        return Response(
            status: .ok,
            headers: [
                .contentType: file.type, .cacheControl: "public, max-age=31536000, immutable",
                .xContentTypeOptions: "nosniff",
            ],
            body: ResponseBody(byteBuffer: ByteBuffer(string: file.body)))
    }

    /// A barbell on a blue square.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1d4ed8"/>\
        <rect x="5" y="15" width="22" height="2" fill="#fff"/><rect x="7" y="9" width="3" height="14" rx="1" fill="#fff"/>\
        <rect x="22" y="9" width="3" height="14" rx="1" fill="#fff"/><rect x="4" y="12" width="2" height="8" rx="1" fill="#fff"/>\
        <rect x="26" y="12" width="2" height="8" rx="1" fill="#fff"/></svg>
        """

    static let stylesheet = """
        :root { --ink: #111827; --muted: #6b7280; --line: #e5e7eb; --bg: #f9fafb; --card: #fff;
          --accent: #1d4ed8; --good: #047857; --warn: #b45309; --bad: #b91c1c; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
          color: var(--ink); background: var(--bg); }
        a { color: var(--accent); }
        main { max-width: 960px; margin: 0 auto; padding: 16px; }
        footer.foot { max-width: 960px; margin: 8px auto 24px; padding: 0 16px; color: var(--muted); }
        /* A word longer than its box (a note of 200 letters, a pasted link) breaks instead of
           widening the page. Not in tables: their columns would shrink to single letters. */
        h1, h2, p, li, dd, pre, label, .card { overflow-wrap: anywhere; }
        h1 { font-size: 1.6rem; margin: 8px 0 12px; }
        h2 { font-size: 1.2rem; margin: 24px 0 8px; }
        .bar { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 16px; padding: 10px 16px;
          background: var(--card); border-bottom: 1px solid var(--line); }
        .brand { display: flex; align-items: center; gap: 8px; font-weight: 700; color: var(--ink);
          text-decoration: none; }
        .bar nav { display: flex; gap: 12px; flex: 1; }
        .bar nav a { text-decoration: none; padding: 4px 2px; }
        .bar nav a[aria-current] { font-weight: 600; border-bottom: 2px solid var(--accent); }
        .sign-out { margin-left: auto; color: var(--muted); font-size: .9rem; }
        .narrow { max-width: 420px; margin: 24px auto; }
        label { display: block; font-weight: 600; margin: 12px 0 4px; }
        label.check { font-weight: 400; margin: 6px 0; }
        input, select, textarea { font: inherit; padding: 8px 10px; border: 1px solid #d1d5db;
          border-radius: 6px; background: #fff; max-width: 100%; }
        .narrow input, textarea { width: 100%; }
        input[aria-invalid], textarea[aria-invalid] { border-color: var(--bad); }
        button, .button { font: inherit; display: inline-block; margin-top: 12px; padding: 8px 16px;
          border: 0; border-radius: 6px; background: var(--accent); color: #fff; cursor: pointer;
          text-decoration: none; }
        button.secondary, .button.secondary { background: #e5e7eb; color: var(--ink); }
        button.danger, .button.danger { background: var(--bad); }
        button.link { background: none; color: var(--accent); padding: 0; margin: 0; text-decoration: underline; }
        .error, .field-error { color: var(--bad); }
        .field-error { margin: 4px 0 0; font-size: .9rem; }
        .notice { background: #ecfdf5; border: 1px solid #a7f3d0; padding: 8px 12px; border-radius: 6px; }
        .muted, .hint, .crumbs, .meta { color: var(--muted); }
        .hint { font-size: .9rem; }
        .empty { color: var(--muted); font-style: italic; }
        .card { display: block; background: var(--card); border: 1px solid var(--line); border-radius: 8px;
          padding: 12px 14px; margin: 8px 0; }
        .card.row { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; justify-content: space-between; }
        .card.row form button { margin: 0 0 0 6px; }
        .card.highlight { border-color: var(--accent); }
        .code { font: 600 1.6rem ui-monospace, monospace; letter-spacing: .08em; }
        .qr { margin: 8px 0; }
        .qr svg { display: block; width: 232px; max-width: 100%; height: auto; }
        code.key { font: 600 1.05rem ui-monospace, monospace; word-spacing: .2em; overflow-wrap: anywhere; }
        ol.steps > li { margin-bottom: 16px; }
        ol.recovery { columns: 2; column-gap: 3em; padding-left: 2.5em; font: 1.1rem ui-monospace, monospace; }
        ol.recovery li { break-inside: avoid; }
        h3 { font-size: 1rem; margin: 16px 0 4px; }
        .share { white-space: pre-wrap; background: var(--bg); padding: 8px; border-radius: 6px; }
        .workout { color: var(--ink); text-decoration: none; display: grid; grid-template-columns: 10em 1fr;
          gap: 2px 12px; }
        .workout .muted { grid-column: 2; }
        .workout:hover { border-color: var(--accent); }
        .search, .filters, .inline { display: flex; flex-wrap: wrap; gap: 6px 10px; align-items: end; margin: 8px 0 16px; }
        .search label, .filters label, .inline label { width: 100%; margin: 0; }
        .filters label { width: auto; }
        .filters .days { width: 5em; }
        .find-clients { align-items: center; }
        .search button, .filters button, .inline button { margin: 0; }
        table { width: 100%; border-collapse: collapse; background: var(--card); }
        th, td { text-align: left; padding: 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        th a { color: var(--ink); }
        tr.warmup td { color: var(--muted); }
        .flag { display: inline-block; font-size: .8rem; padding: 1px 8px; border-radius: 999px; }
        .flag.warn { background: #fef3c7; color: var(--warn); }
        .flag.good { background: #d1fae5; color: var(--good); }
        .tabs { display: flex; flex-wrap: wrap; gap: 4px 16px; border-bottom: 1px solid var(--line); margin: 12px 0 16px; }
        .tabs a { padding: 6px 0; text-decoration: none; }
        .tabs a[aria-current] { font-weight: 600; border-bottom: 2px solid var(--accent); }
        .tabs a:last-child { margin-left: auto; color: var(--bad); }
        .tabs.small a:last-child { margin-left: 0; color: var(--accent); }
        .not-shared { background: #f3f4f6; border: 1px dashed #d1d5db; padding: 16px; border-radius: 8px; }
        .comment { border-left: 3px solid var(--line); padding: 4px 12px; margin: 12px 0; }
        .comment.mine { border-color: var(--accent); }
        .comment .body { white-space: pre-wrap; margin: 4px 0; }
        .typed dt { font-weight: 600; margin-top: 8px; }
        .typed dd { white-space: pre-wrap; margin: 2px 0 0; background: var(--bg); padding: 8px; border-radius: 6px; }
        /* On a phone the chart keeps a readable size and scrolls sideways inside its frame, starting
           at its right end: the newest values, which a coach reads first. A copy of the value labels
           (.axis) lies over the plot in the same grid cell and sticks to the frame's left edge, so
           the values stay readable wherever the chart is scrolled. */
        .chart { margin: 8px 0 16px; }
        .chart .scroll { overflow-x: auto; direction: rtl; background: var(--card); border: 1px solid var(--line); border-radius: 8px; }
        .chart .canvas { display: grid; min-width: 480px; direction: ltr; }
        .chart .canvas > svg { grid-area: 1 / 1; display: block; height: auto; }
        .chart .plot { width: 100%; }
        .chart .axis { position: sticky; left: 0; z-index: 1; align-self: start; }
        figcaption { color: var(--muted); font-size: .9rem; }
        .choices { columns: 2; }
        .small { font-size: .85rem; font-weight: 400; }
        fieldset { border: 0; padding: 0; margin: 0; }
        fieldset.card { border: 1px solid var(--line); padding: 12px 14px; }
        fieldset.item legend { float: left; width: 100%; font-size: 1.05rem; margin-bottom: 4px; }
        .targets { display: flex; flex-wrap: wrap; gap: 4px 12px; clear: both; }
        .targets label, .item > label { font-weight: 400; margin: 4px 0; }
        .item > label input { width: 100%; }
        .row-actions button, .inline-buttons button, .pick { margin: 8px 6px 0 0; }
        .inline-buttons { display: inline; }
        .default-action { position: absolute; left: -10000px; }
        .grid-scroll { overflow-x: auto; }
        /* Seven equal day columns that fit the page; narrower, the grid scrolls instead, each day wide
           enough (about 7.5 em) to tell templates apart. */
        table.program { table-layout: fixed; width: 100%; min-width: 56em; }
        table.program th:first-child { width: 3.5em; }
        table.program th, table.program td { padding: 6px 3px; }
        table.program select { width: 100%; min-width: 0; text-overflow: ellipsis; }
        table.program .day-name { display: block; margin-top: 3px; font-size: .8rem; line-height: 1.25;
          overflow-wrap: anywhere; color: var(--muted); }
        legend { font-weight: 600; }
        .card > h2:first-child { margin-top: 0; }
        .add-coach { display: grid; grid-template-columns: repeat(auto-fit, minmax(280px, 1fr)); gap: 12px; }
        .add-coach input[type=text] { width: 100%; }
        .narrow-form { max-width: 560px; }
        .narrow-form input:not([type=radio]):not([type=checkbox]), .narrow-form textarea { width: 100%; }
        fieldset.units { margin-top: 12px; }
        table.log td[data-label="From"], table.log td:last-child { white-space: nowrap; }
        fieldset.units label.check { display: inline-block; margin-right: 16px; }
        @media (max-width: 640px) {
          main { padding: 12px; }
          table.clients thead { display: none; }
          table.clients tr { display: block; border-bottom: 1px solid var(--line); padding: 6px 0; }
          table.clients td { display: flex; justify-content: space-between; border: 0; padding: 2px 8px; }
          table.clients td::before { content: attr(data-label); color: var(--muted); }
          /* The access log: each read a card, when and who above what, which wraps. */
          table.log thead { display: none; }
          table.log tr { display: block; border-bottom: 1px solid var(--line); padding: 6px 0; }
          table.log td { display: inline; border: 0; padding: 2px 8px 2px 0; }
          table.log td:first-child { color: var(--muted); }
          table.log td:last-child { display: block; padding: 2px 0; }
          /* Cells that need their column's name once the header is hidden (the sessions signed in). */
          table.log td[data-label] { display: block; padding: 2px 0; }
          table.log td[data-label]::before { content: attr(data-label) ": "; color: var(--muted); }
          table.sets th:nth-child(5), table.sets td:nth-child(5) { display: none; }
          /* Wide tables (statistics, records, body) scroll sideways on their own, not the page. */
          table.points { display: block; overflow-x: auto; white-space: nowrap; }
          .workout { grid-template-columns: 1fr; }
          .workout .muted { grid-column: 1; }
          .choices { columns: 1; }
          ol.recovery { columns: 1; }
        }
        """
}
