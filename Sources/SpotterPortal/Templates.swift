import SpotterCore

/// The portal's Mustache templates, compiled into the binary so `spotterd` ships as one file.
///
/// `{{value}}` is HTML-escaped; the only unescaped outputs are a chart `Charts` built with every
/// text in it escaped (`{{{svg}}}`) and a `QRCode`'s SVG, which holds no text but its title
/// (`{{{qr}}}`). Each page fills the `body` block of `layout`; its own
/// values are under `page`, and `csrf` (the session's form token) is visible everywhere.
enum Templates {
    static let all: [String: String] = [
        "layout": layout, "problem": problem, "sign_in": signIn, "sign_up": signUp, "sign_in_code": signInCode,
        "reset_request": resetRequest, "reset_sent": resetSent, "reset_complete": resetComplete,
        "verify_email": verifyEmail,
        "clients": clients, "client": client, "workout": workout, "progress": progress,
        "statistics": statistics, "body": body, "end_link": endLink, "sign_out": signOut, "coaches": coaches,
        "access_log": accessLog,
        "plans": plans, "publish": publish, "template_editor": templateEditor, "program_editor": programEditor,
        "profile": profile, "import": importWorkouts, "security": security, "two_factor_setup": twoFactorSetup,
        "recovery_codes": recoveryCodes, "delete_account": deleteAccount, "account_deleted": accountDeleted,
        "feedback": feedback,
    ]

    static let layout = """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>{{title}} · Spotter</title>
        <link rel="stylesheet" href="/assets/portal.css?v={{assetVersion}}">
        <link rel="icon" href="/assets/icon.svg?v={{assetVersion}}" type="image/svg+xml">
        </head>
        <body>
        <header class="bar">
        <a class="brand" href="/"><img src="/assets/icon.svg?v={{assetVersion}}" alt="" width="24" height="24"> Spotter</a>
        {{#nav}}
        <nav>{{#links}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>{{/links}}</nav>
        <form method="post" action="/sign-out" class="sign-out">
        <input type="hidden" name="_csrf" value="{{csrf}}"><span class="who">{{name}}</span> <button class="link">Sign out</button>
        </form>
        {{/nav}}
        </header>
        <main>
        {{$body}}{{/body}}
        </main>
        {{#nav}}<footer class="foot"><a href="/feedback">Send feedback or report a bug</a></footer>{{/nav}}
        </body>
        </html>
        """

    static let problem = """
        {{<layout}}{{$body}}{{#page}}
        <section class="problem">
        <h1>{{heading}}</h1>
        <p>{{message}}</p>
        {{#links}}<p><a href="{{href}}">{{label}}</a></p>{{/links}}
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    /// A text input with its label and, when the last attempt was refused, why.
    private static func field(
        _ name: String, _ label: String, type: String = "text", extra: String = ""
    ) -> String {
        """
        <label for="\(name)">\(label)</label>
        <input id="\(name)" name="\(name)" type="\(type)" value="{{values.\(name)}}"\(extra)\
        {{#errors.\(name)}} aria-invalid="true" aria-describedby="\(name)-error"{{/errors.\(name)}}>
        {{#errors.\(name)}}<p class="field-error" id="\(name)-error">{{errors.\(name)}}</p>{{/errors.\(name)}}
        """
    }

    static let signIn = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Sign in</h1>
        {{#notice}}<p class="notice">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/sign-in">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="next" value="{{next}}">
        \(field("login", "Username or e-mail", extra: " autocomplete=\"username\" required autofocus"))
        \(field("password", "Password", type: "password", extra: " autocomplete=\"current-password\" required"))
        <button>Sign in</button>
        </form>
        <p><a href="/reset-password">Forgot your password?</a></p>
        <p>New to Spotter? <a href="/sign-up">Create an account</a>.</p>
        <script src="/assets/sign-in.js?v={{assetVersion}}" defer></script>
        {{#hasTyped}}
        <h2>What you typed</h2>
        <p>Copy it to send the form again once you are signed in.</p>
        <dl class="typed">{{#typed}}<dt>{{label}}</dt><dd>{{value}}</dd>{{/typed}}</dl>
        {{/hasTyped}}
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    /// Registration: the API's `Register` in a form. The time zone is the browser's when it tells
    /// (a script fills the empty field), else whatever is typed, else UTC.
    static let signUp = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Create your account</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/sign-up" class="narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <fieldset class="units">
        <legend>You are here to</legend>
        {{#kinds}}<label class="check"><input type="radio" name="kind" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/kinds}}
        {{#errors.kind}}<p class="field-error">{{errors.kind}}</p>{{/errors.kind}}
        </fieldset>
        \(field("display_name", "Your name", extra: " maxlength=\"80\" autocomplete=\"name\""))
        <p class="hint">What your coach, clients and the directory see; your username when left empty.</p>
        \(field("username", "Username", extra: " maxlength=\"32\" required autocomplete=\"username\" autocapitalize=\"none\" spellcheck=\"false\""))
        <p class="hint">3 to 32 letters, digits, '_' and '.', starting with a letter. You sign in with it or your address.</p>
        \(field("email", "E-mail", type: "email", extra: " required autocomplete=\"email\""))
        <p class="hint">We send a link to confirm it, and never show it to anyone.</p>
        \(field("password", "Password", type: "password", extra: " minlength=\"8\" maxlength=\"128\" required autocomplete=\"new-password\""))
        <p class="hint">At least 8 characters; a passphrase of a few words is best.</p>
        \(field("password_again", "Password again", type: "password", extra: " required autocomplete=\"new-password\""))
        \(field("time_zone", "Time zone", extra: " list=\"time-zones\" autocomplete=\"off\" data-browser-time-zone"))
        <datalist id="time-zones">{{#timeZones}}<option value="{{.}}">{{/timeZones}}</datalist>
        <p class="hint">Your days and weeks are counted in it, such as Europe/Berlin; UTC when left empty.</p>
        <fieldset class="units">
        <legend>Weights in</legend>
        {{#units}}<label class="check"><input type="radio" name="unit" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/units}}
        {{#errors.unit}}<p class="field-error">{{errors.unit}}</p>{{/errors.unit}}
        </fieldset>
        <p><button>Create my account</button></p>
        </form>
        <p>Have an account? <a href="/sign-in">Sign in</a>.</p>
        </section>
        <script src="/assets/time-zone.js?v={{assetVersion}}" defer></script>
        {{/page}}{{/body}}{{/layout}}
        """

    /// Feedback and bug reports: the form, then the reports sent with their answers.
    static let feedback = """
        {{<layout}}{{$body}}{{#page}}
        <h1>Feedback</h1>
        {{#sent}}<p class="notice" role="status">Thank you: your report is sent. The answer will show below.</p>{{/sent}}
        <p>Tell us what works, what does not and what you miss. We read every report; an answer shows here.</p>
        <form method="post" action="/feedback" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <fieldset class="units">
        <legend>This is</legend>
        {{#kinds}}<label class="check"><input type="radio" name="kind" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/kinds}}
        {{#errors.kind}}<p class="field-error">{{errors.kind}}</p>{{/errors.kind}}
        </fieldset>
        \(field("subject", "Subject", extra: " maxlength=\"200\" required"))
        <label for="body">What happened, or what you would like</label>
        <textarea id="body" name="body" rows="8" maxlength="10000" required{{#errors.body}} aria-invalid="true" aria-describedby="body-error"{{/errors.body}}>{{values.body}}</textarea>
        {{#errors.body}}<p class="field-error" id="body-error">{{errors.body}}</p>{{/errors.body}}
        <p class="hint">For a bug: what you did, what you expected and what you saw.</p>
        <p><button>Send</button></p>
        </form>
        {{#hasReports}}
        <h2>What you sent</h2>
        {{#reports}}
        <section class="card">
        <h3>{{subject}}</h3>
        <p class="muted">{{kind}} · sent {{sent}}</p>
        <p class="share">{{body}}</p>
        {{#answer}}<p><strong>Our answer{{#answered}} ({{answered}}){{/answered}}:</strong> {{answer}}</p>{{/answer}}
        {{^answer}}<p class="muted">Not answered yet.</p>{{/answer}}
        </section>
        {{/reports}}
        {{/hasReports}}
        {{/page}}{{/body}}{{/layout}}
        """

    static let signInCode = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Two-factor sign-in</h1>
        <p>Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/sign-in/code">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="next" value="{{next}}">
        <input type="hidden" name="challenge" value="{{challenge}}">
        \(field("code", "Code", extra: " autocomplete=\"one-time-code\" inputmode=\"numeric\" required autofocus"))
        <button>Sign in</button>
        </form>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let resetRequest = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Reset your password</h1>
        <p>We will e-mail a link to reset it to the address of your account.</p>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/reset-password">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("email", "E-mail", type: "email", extra: " autocomplete=\"email\" required autofocus"))
        <button>Send the link</button>
        </form>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let resetSent = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Check your e-mail</h1>
        <p>If an account has the address {{email}}, a link to reset its password is on its way.
        It works for one hour.</p>
        <p><a href="/sign-in">Back to sign-in</a></p>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    /// The verification e-mail's link: a button confirms (a GET changes nothing, so a mail
    /// scanner that opens the link does not use the code up).
    static let verifyEmail = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Confirm your e-mail address</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{^notice}}{{^error}}
        {{#values.address}}<p>This makes <strong>{{values.address}}</strong> your Spotter account's address.</p>{{/values.address}}
        <form method="post" action="/verify-email">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="token" value="{{values.token}}">
        <button>Confirm my e-mail address</button>
        </form>
        {{/error}}{{/notice}}
        <p><a href="/sign-in">Sign in</a></p>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let resetComplete = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        <h1>Choose a new password</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <form method="post" action="/reset-password/complete">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("token", "Code from the e-mail", extra: " autocomplete=\"off\" required"))
        \(field("password", "New password", type: "password", extra: " autocomplete=\"new-password\" required"))
        \(field("password_again", "The new password again", type: "password", extra: " autocomplete=\"new-password\" required"))
        <button>Set the password</button>
        </form>
        <p class="hint">At least \(CredentialRules.passwordMinLength) characters. Every session of the account is signed out.</p>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let clients = """
        {{<layout}}{{$body}}{{#page}}
        <h1>Clients</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#newInvite}}
        <section class="card highlight" id="new-invite">
        <h2>New invite{{#note}}: {{note}}{{/note}}</h2>
        <p>Give this code to your client. It is shown only now and works once, until {{expires}}.</p>
        <p class="code">{{code}}</p>
        <p>In the app: <em>Coaching → Redeem an invite</em>; in this portal: <em>Coaches → Add a coach</em>. As text to send:</p>
        <pre class="share">{{shareText}}</pre>
        <form method="post" action="/invites/{{id}}/revoke">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="secondary">Revoke this code</button>
        </form>
        </section>
        {{/newInvite}}
        <form method="get" action="/clients" class="filters find-clients" role="search">
        <label for="q">Find a client</label>
        <input id="q" name="q" type="search" value="{{query}}" placeholder="Name">
        <label for="inactive">Inactive after</label>
        <input id="inactive" name="inactive" type="number" min="1" max="365" value="{{inactiveDays}}" class="days"> <span>days without a workout</span>
        <input type="hidden" name="sort" value="{{sort}}">
        <button>Show</button>
        </form>
        {{#hasClients}}
        <table class="clients">
        <thead><tr>
        {{#columns}}<th scope="col">{{#href}}<a href="{{href}}">{{label}}{{#current}} ▾{{/current}}</a>{{/href}}{{^href}}{{label}}{{/href}}</th>{{/columns}}
        </tr></thead>
        <tbody>
        {{#rows}}
        <tr>
        <td data-label="Client"><a href="/clients/{{id}}">{{name}}</a></td>
        <td data-label="Last workout">{{lastWorkout}}</td>
        <td data-label="This week">{{thisWeek}}</td>
        <td data-label="Streak">{{streak}}</td>
        <td data-label="Flags">{{#inactive}}<span class="flag warn">{{inactiveFlag}}</span> {{/inactive}}\
        {{#paused}}<span class="flag warn">paused: {{paused}}</span> <a href="/clients/{{id}}/end">End coaching…</a> {{/paused}}\
        {{#newRecord}}<span class="flag good">new record: {{newRecord}}</span>{{/newRecord}}</td>
        </tr>
        {{/rows}}
        </tbody>
        </table>
        {{/hasClients}}
        {{^hasClients}}<p class="empty">{{emptyText}}</p>{{/hasClients}}

        <h2>Requests</h2>
        {{#requestError}}<p class="field-error" role="alert">{{requestError}}</p>{{/requestError}}
        {{#requests}}
        <div class="card row">
        <span><strong>{{name}}</strong> asks to be your client ({{scopes}}).</span>
        <form method="post" action="/clients/{{id}}/respond">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button name="answer" value="accept">Accept</button>
        <button name="answer" value="decline" class="secondary">Decline</button>
        </form>
        </div>
        {{/requests}}
        {{^requests}}<p class="empty">No one is waiting for an answer.</p>{{/requests}}
        {{#waiting}}<p class="muted">Invited {{name}} on {{since}}; waiting for their answer.</p>{{/waiting}}

        <h2>Invites</h2>
        <form method="post" action="/invites" class="inline">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="note">Note (for you)</label>
        <input id="note" name="note" value="{{inviteNote}}" maxlength="200"\
        {{#inviteError}} aria-invalid="true"{{/inviteError}}>
        <button>Create an invite code</button>
        {{#inviteError}}<p class="field-error">{{inviteError}}</p>{{/inviteError}}
        {{#inviteRefusal}}<p class="error" role="alert">{{inviteRefusal}}</p>{{/inviteRefusal}}
        </form>
        <form method="post" action="/clients/invite" class="inline">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="invite-username">Or invite by username</label>
        <input id="invite-username" name="username" value="{{inviteUsername}}" maxlength="32" autocomplete="off" autocapitalize="none" required{{#inviteUsernameError}} aria-invalid="true" aria-describedby="invite-username-error"{{/inviteUsernameError}}>
        <button class="secondary">Invite</button>
        {{#inviteUsernameError}}<p class="field-error" id="invite-username-error">{{inviteUsernameError}}</p>{{/inviteUsernameError}}
        </form>
        {{#invites}}
        <div class="card row">
        <span>{{#note}}{{note}} · {{/note}}made {{created}} · {{state}}</span>
        {{#open}}
        <form method="post" action="/invites/{{id}}/revoke">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="secondary">Revoke</button>
        </form>
        {{/open}}
        </div>
        {{/invites}}
        {{/page}}{{/body}}{{/layout}}
        """

    /// The client's name, what they share and the client's tabs.
    private static let clientHeader = """
        <p class="crumbs"><a href="/clients">Clients</a> ›</p>
        <h1>{{client.name}}</h1>
        <p class="muted">Client since {{client.since}} · shares: {{client.scopes}}{{#client.zone}} · {{client.zone}}{{/client.zone}}</p>
        <nav class="tabs">
        <a href="/clients/{{client.id}}"{{#tab.history}} aria-current="page"{{/tab.history}}>History</a>
        <a href="/clients/{{client.id}}/progress"{{#tab.progress}} aria-current="page"{{/tab.progress}}>Progress</a>
        <a href="/clients/{{client.id}}/statistics"{{#tab.statistics}} aria-current="page"{{/tab.statistics}}>Statistics</a>
        <a href="/clients/{{client.id}}/body"{{#tab.body}} aria-current="page"{{/tab.body}}>Body</a>
        <a href="/clients/{{client.id}}/end">End coaching</a>
        </nav>
        """

    static let client = """
        {{<layout}}{{$body}}{{#page}}
        \(clientHeader)
        <p class="muted"><a href="#plans">Plans ↓</a> what is assigned, and assigning a template or a program</p>
        {{#notShared}}<p class="not-shared">{{notShared}}</p>{{/notShared}}
        {{^notShared}}
        <form method="get" action="/clients/{{client.id}}" class="search" role="search">
        <label for="q">Search workouts</label>
        <input id="q" name="q" type="search" value="{{query}}" placeholder="Workout or exercise" maxlength="100"{{#searchError}} aria-invalid="true" aria-describedby="q-error"{{/searchError}}>
        <button>Search</button>
        </form>
        {{#searchError}}<p class="field-error" id="q-error" role="alert">{{searchError}}</p>{{/searchError}}
        {{#workouts}}
        {{#href}}<a class="card workout" href="{{href}}">{{/href}}{{^href}}<div class="card workout">{{/href}}
        <span class="when">{{date}}</span>
        <strong>{{name}}</strong>
        <span class="muted">{{line}}</span>
        {{#href}}</a>{{/href}}{{^href}}</div>{{/href}}
        {{/workouts}}
        {{^searchError}}{{^workouts}}<p class="empty">No workouts found{{#query}} for “{{query}}”{{/query}}.</p>{{/workouts}}{{/searchError}}
        {{#detailsHidden}}<p class="not-shared">{{detailsHidden}}</p>{{/detailsHidden}}
        {{#older}}<p><a class="button secondary" href="{{older}}">Older workouts</a></p>{{/older}}
        {{/notShared}}
        <section id="plans">
        <h2>Plans</h2>
        {{#plansNotice}}<p class="notice" role="status">{{plansNotice}}</p>{{/plansNotice}}
        {{#assignments}}
        <div class="card row">
        <span><strong>{{name}}</strong> · {{kind}} version {{version}} · since {{since}}{{#note}} · {{note}}{{/note}}</span>
        <a class="button secondary" href="/clients/{{client.id}}/assignments/{{id}}/delete">Unassign…</a>
        </div>
        {{/assignments}}
        {{^assignments}}<p class="empty">Nothing assigned yet.</p>{{/assignments}}
        {{#hasPlans}}
        <form method="post" action="/clients/{{client.id}}/assignments" class="inline">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="item">Assign</label>
        <select id="item" name="item"{{#assignError}} aria-invalid="true"{{/assignError}}>
        {{#plans}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/plans}}
        </select>
        <input name="note" value="{{assignNote}}" placeholder="Note for {{client.name}}" maxlength="1000" aria-label="Note">
        <button>Assign</button>
        {{#assignError}}<p class="field-error">{{assignError}}</p>{{/assignError}}
        </form>
        {{/hasPlans}}
        {{^hasPlans}}<p class="muted">Make a template or a program to assign one: <a href="/templates">templates</a>, <a href="/programs">programs</a>.</p>{{/hasPlans}}
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let workout = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="/clients">Clients</a> › <a href="/clients/{{client.id}}">{{client.name}}</a> ›</p>
        <h1>{{name}}</h1>
        <p class="muted">{{date}}{{#duration}} · {{duration}}{{/duration}} · {{summary}}{{#client.zone}}<br>{{client.zone}}{{/client.zone}}</p>
        <p class="small">Summary card to share: <a href="/clients/{{client.id}}/workouts/{{workoutID}}/card.png">PNG</a> · <a href="/clients/{{client.id}}/workouts/{{workoutID}}/card.svg">SVG</a></p>
        {{#notes}}<p class="notes">{{notes}}</p>{{/notes}}
        {{#exercises}}
        <section class="card exercise">
        <h2>{{name}}{{#place}} <span class="small">{{place}}</span>{{/place}}{{#progress}} <a class="small" href="/clients/{{client.id}}/progress?exercise={{exerciseID}}">progress</a>{{/progress}}</h2>
        {{#notes}}<p class="notes">{{notes}}</p>{{/notes}}
        <table class="sets">
        <thead><tr><th scope="col">Set</th><th scope="col">Weight</th><th scope="col">Reps</th>{{#hasTimes}}<th scope="col">Time / distance</th>{{/hasTimes}}<th scope="col">RPE</th><th scope="col">Note</th></tr></thead>
        <tbody>
        {{#sets}}
        <tr{{#warmup}} class="warmup"{{/warmup}}><td>{{label}}</td><td>{{weight}}</td><td>{{reps}}</td>{{#hasTimes}}<td>{{timed}}</td>{{/hasTimes}}<td>{{rpe}}</td><td>{{note}}</td></tr>
        {{/sets}}
        </tbody>
        </table>
        </section>
        {{/exercises}}
        <section id="comments">
        <h2>Comments</h2>
        {{#comments}}
        <div class="comment{{#mine}} mine{{/mine}}">
        <p class="meta"><strong>{{author}}</strong> · {{date}}{{#target}} · on {{target}}{{/target}}</p>
        <p class="body">{{body}}</p>
        {{#mine}}
        <form method="post" action="/clients/{{client.id}}/workouts/{{workoutID}}/comments/{{id}}/delete">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="link">Delete</button>
        </form>
        {{/mine}}
        </div>
        {{/comments}}
        {{^comments}}<p class="empty">No comments yet.</p>{{/comments}}
        <form method="post" action="/clients/{{client.id}}/workouts/{{workoutID}}/comments" class="comment-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="target">On</label>
        <select id="target" name="target">
        {{#targets}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/targets}}
        </select>
        <label for="body">Comment</label>
        <textarea id="body" name="body" rows="3" maxlength="2000"\
        {{#commentError}} aria-invalid="true" aria-describedby="body-error"{{/commentError}}>{{commentText}}</textarea>
        {{#commentError}}<p class="field-error" id="body-error">{{commentError}}</p>{{/commentError}}
        <button>Add comment</button>
        </form>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let progress = """
        {{<layout}}{{$body}}{{#page}}
        \(clientHeader)
        {{#notShared}}<p class="not-shared">{{notShared}}</p>{{/notShared}}
        {{^notShared}}
        <form method="get" action="/clients/{{client.id}}/progress" class="filters">
        <label for="exercise-search">Exercise</label>
        <input id="exercise-search" name="find" type="search" value="{{find}}" placeholder="Find an exercise" maxlength="100"{{#findError}} aria-invalid="true" aria-describedby="find-error"{{/findError}}>
        <input type="hidden" name="exercise" value="{{exerciseID}}">
        <label for="from">From</label><input id="from" name="from" type="date" value="{{from}}">
        <label for="to">To</label><input id="to" name="to" type="date" value="{{to}}">
        <label for="formula">Formula</label>
        <select id="formula" name="formula">{{#formulas}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/formulas}}</select>
        <button>Show</button>
        </form>
        {{#rangeError}}<p class="field-error" role="alert">{{rangeError}}</p>{{/rangeError}}
        {{#findError}}<p class="field-error" id="find-error" role="alert">{{findError}}</p>{{/findError}}
        {{#locked}}<p class="not-shared" role="alert">{{locked}}</p>{{/locked}}
        {{#hasChoices}}<p>Pick an exercise:</p>{{/hasChoices}}
        <ul class="choices">{{#choices}}<li><a href="{{href}}">{{name}}</a></li>{{/choices}}</ul>
        {{#report}}
        <h2>{{exercise}}</h2>
        {{#hasPoints}}
        <figure class="chart"><div class="scroll">{{{svg}}}</div>
        <figcaption>{{caption}} Hover a point for its set; the table below lists every day.</figcaption>
        </figure>
        <p class="small">Chart to share: <a href="/clients/{{client.id}}/progress/chart.png?{{chartQuery}}">PNG</a> · <a href="/clients/{{client.id}}/progress/chart.svg?{{chartQuery}}">SVG</a></p>
        <h3>Records</h3>
        <ul class="records">{{#records}}<li>{{.}}</li>{{/records}}</ul>
        <table class="points">
        <thead><tr><th scope="col">Day</th><th scope="col">e1RM</th><th scope="col">Top set</th><th scope="col">Volume</th><th scope="col">Sets</th></tr></thead>
        <tbody>{{#points}}<tr><td>{{date}}</td><td title="{{how}}">{{e1rm}}{{#from}}<br><span class="small">from {{from}}</span>{{/from}}</td><td>{{topSet}}</td><td>{{volume}}</td><td>{{sets}}</td></tr>{{/points}}</tbody>
        </table>
        {{/hasPoints}}
        {{^hasPoints}}<p class="empty">No sets of {{exercise}} in this range.</p>{{/hasPoints}}
        {{/report}}
        {{/notShared}}
        {{/page}}{{/body}}{{/layout}}
        """

    static let statistics = """
        {{<layout}}{{$body}}{{#page}}
        \(clientHeader)
        {{#notShared}}<p class="not-shared">{{notShared}}</p>{{/notShared}}
        {{^notShared}}
        {{#streak}}<p class="streak">{{streak}}</p>{{/streak}}
        <nav class="tabs small">{{#periods}}<a href="{{href}}"{{#current}} aria-current="page"{{/current}}>{{label}}</a>{{/periods}}</nav>
        {{#hasBuckets}}
        <figure class="chart"><div class="scroll">{{{svg}}}</div><figcaption>Volume per {{period}}; hover a bar for its workouts and sets.</figcaption></figure>
        <table class="points">
        <thead><tr><th scope="col">{{periodTitle}}</th><th scope="col">Workouts</th><th scope="col">Minutes</th><th scope="col">Sets</th><th scope="col">Volume</th><th scope="col">Most trained</th></tr></thead>
        <tbody>{{#buckets}}<tr><td>{{start}}</td><td>{{workouts}}</td><td>{{minutes}}</td><td>{{sets}}</td><td>{{volume}}</td><td>{{muscles}}</td></tr>{{/buckets}}</tbody>
        </table>
        {{/hasBuckets}}
        {{^hasBuckets}}<p class="empty">No workouts in this range.</p>{{/hasBuckets}}
        <h2>Achievements</h2>
        <p class="muted">{{earnedCount}} earned, from all of the client's history.</p>
        {{#hasEarned}}<ul class="achievements">{{#earned}}<li><strong>{{title}}</strong> <span class="muted">{{detail}}</span></li>{{/earned}}</ul>{{/hasEarned}}
        {{#hasNextUp}}<h3>Next up</h3><ul class="achievements">{{#nextUp}}<li>{{title}} <span class="muted">{{detail}}</span></li>{{/nextUp}}</ul>{{/hasNextUp}}
        {{/notShared}}
        {{/page}}{{/body}}{{/layout}}
        """

    static let body = """
        {{<layout}}{{$body}}{{#page}}
        \(clientHeader)
        {{#notShared}}<p class="not-shared">{{notShared}}</p>{{/notShared}}
        {{^notShared}}
        {{#series}}
        <h2>{{name}}</h2>
        <p class="muted">Latest {{latest}} on {{latestDay}}{{#change}} · {{change}} since {{firstDay}}{{/change}}</p>
        {{#svg}}<figure class="chart"><div class="scroll">{{{svg}}}</div><figcaption>{{name}} per measurement; hover a point for its date and note.</figcaption></figure>{{/svg}}
        {{/series}}
        {{^series}}<p class="empty">No measurements yet.</p>{{/series}}
        {{/notShared}}
        {{/page}}{{/body}}{{/layout}}
        """

    static let endLink = """
        {{<layout}}{{$body}}{{#page}}
        <section class="narrow">
        {{^refused}}<h1>{{question}} {{name}}?</h1>{{/refused}}
        {{#refused}}<h1>{{name}} cannot be deleted</h1>{{/refused}}
        <p>{{consequence}}</p>
        {{^refused}}
        <form method="post" action="{{action}}">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button class="danger">{{button}}</button> <a href="{{back}}">Keep it</a>
        </form>
        {{/refused}}
        {{#refused}}<p><a class="button secondary" href="{{back}}">Back</a></p>{{/refused}}
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    /// Sign-out sent from a page opened before the session changed (another tab signed out and in):
    /// its token is stale, so it asks once more, with this session's.
    static let signOut = """
        {{<layout}}{{$body}}
        <section class="narrow">
        <h1>Sign out?</h1>
        <p>That page was opened before you signed in again, so you are still signed in.</p>
        <form method="post" action="/sign-out">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button>Sign out</button>
        </form>
        </section>
        {{/body}}{{/layout}}
        """

    /// What a new coach may see, ticked per scope (the coaches page's two "Add a coach" forms).
    private static let newScopeBoxes = """
        <fieldset><legend>Shared with the coach</legend>
        {{#newScopes}}<label class="check"><input type="checkbox" name="scopes" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}} <span class="hint">{{hint}}</span></label>{{/newScopes}}
        </fieldset>
        """

    static let coaches = """
        {{<layout}}{{$body}}{{#page}}
        <h1>Your coaches</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        <p class="muted">Each coach sees only what you tick, from their next page view on.</p>
        {{#links}}
        <section class="card">
        <h2>{{name}}</h2>
        <p class="muted">{{state}}</p>
        <form method="post" action="{{action}}" class="scopes">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <fieldset><legend>Shared with {{name}}</legend>
        {{#scopes}}<label class="check"><input type="checkbox" name="scopes" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}} <span class="hint">{{hint}}</span></label>{{/scopes}}
        </fieldset>
        {{#pending}}<button name="answer" value="accept">Accept</button> <button name="answer" value="decline" class="secondary">Decline</button>{{/pending}}
        {{^pending}}<button>Save what {{name}} sees</button>{{/pending}}
        </form>
        <p>{{^pending}}<a href="/coaches/{{id}}/end">{{#asked}}Withdraw request{{/asked}}{{^asked}}End coaching{{/asked}}</a> · {{/pending}}<a href="/access-log?coach={{id}}">What {{name}} looked at</a></p>
        </section>
        {{/links}}
        {{^links}}<p class="empty">You have no coach yet.</p>{{/links}}
        <h2 id="find">Find a coach</h2>
        {{^hasDirectory}}<p class="empty">No {{#hasLinks}}other {{/hasLinks}}coach lists themselves in the directory yet. Add one by invite code or username below.</p>{{/hasDirectory}}
        {{#hasDirectory}}
        <p class="muted">Coaches who list themselves, most followed first. Asking one sends them a request; what you tick is what they may see once they accept.</p>
        {{#directory}}
        <section class="card">
        <h3>{{name}} <span class="muted">@{{username}}</span></h3>
        {{#specialities}}<p class="muted">{{specialities}}</p>{{/specialities}}
        {{#bio}}<p>{{bio}}</p>{{/bio}}
        {{#hasHighlights}}<ul>{{#highlights}}<li>{{.}}</li>{{/highlights}}</ul>{{/hasHighlights}}
        <p class="muted">{{followers}}</p>
        <form method="post" action="/coaches/request">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="username" value="{{username}}">
        \(newScopeBoxes)
        <button>Ask {{name}}</button>
        </form>
        </section>
        {{/directory}}
        {{/hasDirectory}}
        <h2 id="add">Add a coach</h2>
        <p class="muted">With the invite code your coach gave you the link starts at once; by username, once
        the coach accepts. Tick what they may see; you can change it at any time.</p>
        <div class="add-coach">
        <form method="post" action="/coaches/redeem" class="card">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("code", "Invite code", extra: " autocomplete=\"off\" autocapitalize=\"characters\" required"))
        \(newScopeBoxes)
        <button>Start coaching</button>
        </form>
        <form method="post" action="/coaches/request" class="card">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("username", "Coach's username", extra: " autocomplete=\"off\" required"))
        \(newScopeBoxes)
        <button>Ask this coach</button>
        </form>
        </div>
        {{/page}}{{/body}}{{/layout}}
        """

    static let plans = """
        {{<layout}}{{$body}}{{#page}}
        <h1>{{title}}</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        <p><a class="button" href="{{path}}/new">New {{kind}}</a></p>
        {{#rows}}
        <section class="card">
        <h2><a href="{{path}}/{{id}}">{{name}}</a></h2>
        <p class="muted">{{detail}}</p>
        <p>{{#holders}}Assigned to {{holders}}.{{/holders}}{{^holders}}Not assigned to anyone.{{/holders}}</p>
        {{#usedIn}}<p class="muted">A training day of {{usedIn}}.</p>{{/usedIn}}
        <p>{{#publicState}}{{publicState}} {{/publicState}}<a href="{{path}}/{{id}}/publish">{{#publicState}}Publishing…{{/publicState}}{{^publicState}}Publish in Discover…{{/publicState}}</a></p>
        <form method="post" action="{{path}}/{{id}}/copy" class="inline-buttons">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="secondary">Copy</button>
        </form>
        <a class="button secondary" href="{{path}}/{{id}}/delete">Delete…</a>
        </section>
        {{/rows}}
        {{^rows}}<p class="empty">None yet.</p>{{/rows}}
        {{/page}}{{/body}}{{/layout}}
        """

    static let publish = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="{{list}}">{{listName}}</a> › <a href="{{action}}">{{name}}</a> ›</p>
        <h1>Publish {{name}}</h1>
        {{#notice}}<p class="notice">{{notice}}</p>{{/notice}}
        <p>{{status}}</p>
        <p class="muted">Publishing shows a copy of this {{kind}} as it is now to every Spotter account, under your name, in Discover. Your own {{kind}} stays private: later edits reach Discover when you publish again, as a new version that followers are offered. Only built-in exercises can be published.</p>
        <form method="post" action="{{action}}/publish" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="description">Description</label>
        <textarea id="description" name="description" rows="4" maxlength="2000"{{#errors.description}} aria-invalid="true"{{/errors.description}}>{{description}}</textarea>
        {{#errors.description}}<p class="field-error">{{errors.description}}</p>{{/errors.description}}
        <p class="hint">Who it is for and how to run it. Empty uses the {{kind}}'s notes.</p>
        <fieldset class="units">
        <legend>Difficulty</legend>
        {{#difficulties}}<label class="check"><input type="radio" name="difficulty" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/difficulties}}
        {{#errors.difficulty}}<p class="field-error">{{errors.difficulty}}</p>{{/errors.difficulty}}
        </fieldset>
        <fieldset class="units">
        <legend>Categories (one to three)</legend>
        {{#categories}}<label class="check"><input type="checkbox" name="categories" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/categories}}
        {{#errors.categories}}<p class="field-error">{{errors.categories}}</p>{{/errors.categories}}
        </fieldset>
        {{#errors.source_id}}<p class="error" role="alert">{{errors.source_id}}</p>{{/errors.source_id}}
        <p><button>{{button}}</button></p>
        </form>
        {{#live}}
        <form method="post" action="{{action}}/unpublish" class="inline-buttons">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="secondary">Unpublish</button>
        </form>
        {{/live}}
        {{/page}}{{/body}}{{/layout}}
        """

    /// The top of a template's or program's editor: where it belongs, its name, what happened.
    private static func planHeading(_ list: String, _ listName: String, new: String, whoSees: String) -> String {
        """
        <p class="crumbs"><a href="\(list)">\(listName)</a> ›</p>
        <h1>{{#name}}{{name}}{{/name}}{{^name}}\(new){{/name}}</h1>
        {{#saved}}<p class="notice">Saved as version {{version}}. \(whoSees)</p>{{/saved}}
        {{#unchanged}}<p class="notice">Nothing had changed: it stays version {{version}}.</p>{{/unchanged}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        """
    }

    /// What names the plan being edited in its form: id, the version it started from, name, notes.
    private static let planIdentity = """
        <input type="hidden" name="id" value="{{id}}">
        <input type="hidden" name="version" value="{{version}}">
        \(field("name", "Name", extra: " maxlength=\"100\" required"))
        <label for="notes">Notes</label>
        <textarea id="notes" name="notes" rows="2">{{notes}}</textarea>
        {{#errors.notes}}<p class="field-error">{{errors.notes}}</p>{{/errors.notes}}
        """

    static let templateEditor = """
        {{<layout}}{{$body}}{{#page}}
        \(planHeading(
            "/templates", "Templates", new: "New template",
            whoSees: "Clients who have it, on its own or in a program, see it now."))
        <form method="post" action="/templates/edit" class="editor">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button name="action" value="refresh" class="default-action" tabindex="-1" aria-hidden="true" formnovalidate>Update</button>
        \(planIdentity)
        <h2>Exercises</h2>
        {{#rows}}
        <fieldset class="card item">
        <legend>{{exerciseName}}</legend>
        <input type="hidden" name="exercise" value="{{exercise}}">
        <input type="hidden" name="exercise_name" value="{{exerciseName}}">
        <div class="targets">
        <label>Sets <input name="sets" value="{{sets}}" inputmode="numeric" size="3"></label>
        <label>Reps from <input name="reps_min" value="{{repsMin}}" inputmode="numeric" size="3"></label>
        <label>to <input name="reps_max" value="{{repsMax}}" inputmode="numeric" size="3"></label>
        <label>Load <input name="load" value="{{load}}" size="7" placeholder="kg, lb or %"></label>
        <label>RPE <input name="rpe" value="{{rpe}}" inputmode="decimal" size="4"></label>
        <label>Rest (s) <input name="rest" value="{{rest}}" inputmode="numeric" size="4"></label>
        <label>Time (s) <input name="time" value="{{time}}" inputmode="numeric" size="5"></label>
        <label>Distance (m) <input name="distance" value="{{distance}}" inputmode="numeric" size="6"></label>
        <label>Section <select name="section">{{#sections}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/sections}}</select></label>
        <label>Circuit <input name="circuit" value="{{circuit}}" inputmode="numeric" size="2" placeholder="–"></label>
        </div>
        <label>Notes <input name="item_notes" value="{{notes}}" maxlength="1000"></label>
        {{#error}}<p class="field-error">{{error}}</p>{{/error}}
        <div class="row-actions">
        {{^first}}<button name="action" value="up:{{index}}" class="secondary" formnovalidate>Move up</button>{{/first}}
        {{^last}}<button name="action" value="down:{{index}}" class="secondary" formnovalidate>Move down</button>{{/last}}
        <button name="action" value="remove:{{index}}" class="secondary" formnovalidate>Remove</button>
        </div>
        </fieldset>
        {{/rows}}
        {{^rows}}<p class="empty">No exercises yet: find one below.</p>{{/rows}}
        {{#hasCircuits}}<h2>Circuits</h2>
        <p class="hint">Give consecutive exercises of one section the same circuit number: they are done one after another, then again, for each round.</p>{{/hasCircuits}}
        {{#circuits}}
        <div class="targets card">
        <strong>Circuit {{number}}</strong>
        <label>Rounds <input name="circuit_rounds" value="{{rounds}}" inputmode="numeric" size="3"></label>
        <label>Rest after each round (s) <input name="circuit_rest" value="{{rest}}" inputmode="numeric" size="4"></label>
        </div>
        {{/circuits}}
        {{#circuitError}}<p class="field-error">{{circuitError}}</p>{{/circuitError}}
        <div class="inline">
        <label for="find">Add an exercise</label>
        <input id="find" name="find" type="search" value="{{find}}" placeholder="Name, such as squat">
        <button name="action" value="find" class="secondary" formnovalidate>Find</button>
        </div>
        {{#found}}<button name="add" value="{{id}}" class="secondary pick" formnovalidate>+ {{name}}</button> {{/found}}
        {{#searched}}{{^found}}<p class="empty">No exercise matches “{{find}}”.</p>{{/found}}{{/searched}}
        {{#findEmpty}}<p class="empty">Type the name of an exercise to find it.</p>{{/findEmpty}}
        <p><button name="action" value="save">Save template</button></p>
        </form>
        {{/page}}{{/body}}{{/layout}}
        """

    static let programEditor = """
        {{<layout}}{{$body}}{{#page}}
        \(planHeading(
            "/programs", "Programs", new: "New program", whoSees: "Clients it is assigned to see it now."))
        {{^hasTemplates}}<p class="notice">A program's days are templates: <a href="/templates/new">make a template</a> first.</p>{{/hasTemplates}}
        <form method="post" action="/programs/edit" class="editor">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(planIdentity)
        <div class="inline">
        <label for="weeks">Weeks</label>
        <input id="weeks" name="weeks" value="{{weeksText}}" inputmode="numeric" size="3"{{#errors.weeks}} aria-invalid="true" aria-describedby="weeks-error"{{/errors.weeks}}>
        <button name="action" value="weeks" class="secondary" formnovalidate>Change the number of weeks</button>
        {{#errors.weeks}}<p class="field-error" id="weeks-error">{{errors.weeks}}</p>{{/errors.weeks}}
        </div>
        {{#errors.days}}<p class="field-error">{{errors.days}}</p>{{/errors.days}}
        <div class="grid-scroll">
        <table class="program">
        <thead><tr><th scope="col">Week</th><th scope="col">Mon</th><th scope="col">Tue</th><th scope="col">Wed</th><th scope="col">Thu</th><th scope="col">Fri</th><th scope="col">Sat</th><th scope="col">Sun</th></tr></thead>
        <tbody>
        {{#grid}}<tr><th scope="row">{{number}}</th>{{#days}}<td><select name="{{field}}" aria-label="{{label}}" data-name="{{field}}-name">{{#options}}<option value="{{value}}"{{#selected}} selected{{/selected}}>{{label}}</option>{{/options}}</select><span class="day-name" id="{{field}}-name" aria-hidden="true">{{chosenName}}</span></td>{{/days}}</tr>{{/grid}}
        </tbody>
        </table>
        </div>
        <script src="/assets/program-editor.js?v={{assetVersion}}" defer></script>
        <p><button name="action" value="save">Save program</button></p>
        </form>
        {{/page}}{{/body}}{{/layout}}
        """

    static let accessLog = """
        {{<layout}}{{$body}}{{#page}}
        <h1>Who looked at what</h1>
        <p class="muted">Every time a coach reads your data, it is written here; the same read again within half an hour is one line, with how many times. {{#coachName}}Showing {{coachName}} only · <a href="/access-log">everyone</a>{{/coachName}}</p>
        {{#hasEntries}}
        <table class="log">
        <thead><tr><th scope="col">When</th><th scope="col">Coach</th><th scope="col">What</th></tr></thead>
        <tbody>{{#entries}}<tr><td>{{when}}</td><td>{{coach}}</td><td>{{what}}</td></tr>{{/entries}}</tbody>
        </table>
        {{/hasEntries}}
        {{^entries}}<p class="empty">No coach has read your data yet.</p>{{/entries}}
        {{#older}}<p><a class="button secondary" href="{{older}}">Older</a></p>{{/older}}
        {{/page}}{{/body}}{{/layout}}
        """

    static let profile = """
        {{<layout}}{{$body}}{{#page}}
        <h1>Your profile</h1>
        {{#saved}}<p class="notice">Saved.</p>{{/saved}}
        {{#unverified}}
        <section class="card highlight" id="verify">
        {{#verification}}<p class="notice" role="status">{{verification}}</p>{{/verification}}
        {{#verificationRefused}}<p class="error" role="alert">{{verificationRefused}}</p>{{/verificationRefused}}
        <p>Your address <strong>{{email}}</strong> is not verified yet. Open the link we e-mailed you; it works for 48 hours.</p>
        <form method="post" action="/profile/verify-email" class="inline-buttons">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="secondary">Send the link again</button>
        </form>
        </section>
        {{/unverified}}
        <form method="post" action="/profile" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("display_name", "Name", extra: " maxlength=\"80\" required autocomplete=\"name\""))
        {{#isCoach}}
        <label for="bio">Bio</label>
        <textarea id="bio" name="bio" rows="5" maxlength="1000"{{#errors.bio}} aria-invalid="true" aria-describedby="bio-error"{{/errors.bio}}>{{values.bio}}</textarea>
        {{#errors.bio}}<p class="field-error" id="bio-error">{{errors.bio}}</p>{{/errors.bio}}
        <p class="hint">What a lifter reads about you in the coach directory: how you coach, who you coach best. At most 1,000 characters.</p>
        \(field("specialities", "Specialities", extra: " placeholder=\"powerlifting, beginners, meet prep\""))
        <p class="hint">Up to 8, separated by commas.</p>
        {{/isCoach}}
        \(field("time_zone", "Time zone", extra: " list=\"time-zones\" required autocomplete=\"off\""))
        <datalist id="time-zones">{{#timeZones}}<option value="{{.}}">{{/timeZones}}</datalist>
        <p class="hint">Days and weeks are counted in it, such as Europe/Berlin or America/New_York.</p>
        <fieldset class="units">
        <legend>Weights in</legend>
        {{#units}}<label class="check"><input type="radio" name="unit" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/units}}
        {{#errors.unit}}<p class="field-error">{{errors.unit}}</p>{{/errors.unit}}
        </fieldset>
        <label class="check"><input type="checkbox" name="email_notifications"{{#emailNotifications}} checked{{/emailNotifications}}> E-mail me coaching news</label>
        <p class="hint">{{#isCoach}}A lifter asking you to coach them, a client joining, accepting or ending the coaching, a client's reply to your comment{{/isCoach}}{{^isCoach}}A coach asking to coach you or accepting your request, a coach's comment on your workout, a plan a coach assigns you{{/isCoach}}; at most one e-mail an hour about the comments on one workout. Sent once your address is confirmed.</p>
        <p><button>Save profile</button></p>
        </form>
        {{#isCoach}}
        <section class="card" id="directory">
        <h2>Coach directory</h2>
        {{#listedSaved}}<p class="notice">Saved.</p>{{/listedSaved}}
        <p>Lifters looking for a coach find you in Discover with your name, bio, specialities and these highlights (in the app, also what you have published), and can ask you to coach them.</p>
        <form method="post" action="/profile/directory" class="editor">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label class="check"><input type="checkbox" name="listed"{{#listed}} checked{{/listed}}> List me in the coach directory</label>
        <label for="highlights">Highlights</label>
        <textarea id="highlights" name="highlights" rows="4"{{#listingError}} aria-invalid="true" aria-describedby="highlights-error"{{/listingError}}>{{highlights}}</textarea>
        {{#listingError}}<p class="field-error" id="highlights-error">{{listingError}}</p>{{/listingError}}
        <p class="hint">Up to five, one per line, such as “Coached 40 lifters to their first meet”.</p>
        <p><button>Save listing</button></p>
        </form>
        </section>
        {{/isCoach}}
        <section class="card tier">
        <h2>Your tier: {{tier}}{{#expires}} <span class="muted">{{expires}}</span>{{/expires}}</h2>
        <p>{{allows}}</p>
        <p class="muted">{{next}}</p>
        </section>
        <section class="card">
        <h2>Your data</h2>
        <p>Everything Spotter holds about you, to keep or to take elsewhere: <a href="/export.json" download>everything (JSON)</a>, or for spreadsheets (CSV) <a href="/export.csv" download>every set</a>, <a href="/export.templates.csv" download>your templates</a> and <a href="/export.measurements.csv" download>your body measurements</a>, one row each.</p>
        <p>Coming from Strong or Hevy? <a href="/import">Import your workouts</a> from their CSV export, or a Spotter export.</p>
        </section>
        <section class="card">
        <h2>Password and sign-ins</h2>
        <p><a href="/security">Change your password, set up two-factor sign-in, or see where you are signed in</a> and sign out a lost device.</p>
        </section>
        <p class="muted">Signed in as {{username}} ({{email}}).</p>
        {{/page}}{{/body}}{{/layout}}
        """

    static let security = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="/profile">Profile</a> ›</p>
        <h1>Password and sign-ins</h1>
        {{#notice}}<p class="notice" role="status">{{notice}}</p>{{/notice}}
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <section class="card">
        <h2>Change your password</h2>
        <form method="post" action="/security/password" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("current_password", "Current password", type: "password", extra: " autocomplete=\"current-password\" required"))
        \(field("new_password", "New password", type: "password", extra: " autocomplete=\"new-password\" required"))
        \(field("new_password_again", "The new password again", type: "password", extra: " autocomplete=\"new-password\" required"))
        <p class="hint">At least \(CredentialRules.passwordMinLength) characters. Every other device is signed out; this one stays signed in.</p>
        <button>Change the password</button>
        </form>
        </section>
        <section class="card" id="username">
        <h2>Username</h2>
        <p>You are <strong>{{username}}</strong>: you sign in with it, and {{#coach}}lifters{{/coach}}{{^coach}}coaches{{/coach}} find you by it.</p>
        <form method="post" action="/security/username" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("new_username", "New username", extra: " autocomplete=\"username\" autocapitalize=\"none\" required"))
        <p class="hint">3 to 32 letters, digits, '_' and '.', starting with a letter. Your old one stays yours for 14 days: nobody else can take it, and you can take it back.</p>
        <button class="secondary">Change the username</button>
        </form>
        </section>
        <section class="card" id="email">
        <h2>E-mail address</h2>
        <p>Your address is <strong>{{email}}</strong>{{#emailVerified}} (confirmed){{/emailVerified}}{{^emailVerified}} (not confirmed yet){{/emailVerified}}. Password resets and notices go there, and you can sign in with it.</p>
        {{#pendingEmail}}
        <form method="post" action="/security/email/cancel" class="inline-buttons">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <p class="hint">A link went to <strong>{{pendingEmail}}</strong> on {{pendingSince}}; your address changes when it is opened. <button class="link">Cancel the change</button></p>
        </form>
        {{/pendingEmail}}
        <form method="post" action="/security/email" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("new_email", "New address", type: "email", extra: " autocomplete=\"email\" required"))
        \(field("email_password", "Your password", type: "password", extra: " autocomplete=\"current-password\" required"))
        {{#twoFactorSince}}
        \(field("email_code", "Code from your authenticator app, or a recovery code", extra: " autocomplete=\"one-time-code\" required"))
        {{/twoFactorSince}}
        <p class="hint">We send a link to the new address; it becomes your address when you open it. This one is told of the change.</p>
        <button class="secondary">Change the address</button>
        </form>
        </section>
        <section class="card" id="two-factor">
        <h2>Two-factor sign-in</h2>
        {{#twoFactorSince}}
        <p><strong>On</strong> since {{twoFactorSince}}: signing in asks for a code from your authenticator app (or one of your recovery codes) after the password.</p>
        <form method="post" action="/security/two-factor/recovery-codes" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <h3>New recovery codes</h3>
        <p class="hint">Ten new codes replace the ones you have. Used up or lost them? Make new ones with a code from the app.</p>
        \(field("codes_code", "Code from your authenticator app", extra: " autocomplete=\"one-time-code\" inputmode=\"numeric\" required"))
        <button class="secondary">Make new recovery codes</button>
        </form>
        <form method="post" action="/security/two-factor/off" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <h3>Turn it off</h3>
        <p class="hint">Signing in will ask for your password only. Lost your phone? A recovery code works here too.</p>
        \(field("off_code", "Code from your authenticator app, or a recovery code", extra: " autocomplete=\"one-time-code\" required"))
        <button class="danger">Turn off two-factor sign-in</button>
        </form>
        {{/twoFactorSince}}
        {{^twoFactorSince}}
        <p><strong>Off.</strong> With it on, signing in also asks for a six-digit code from an authenticator app on your phone, so a stolen password alone does not open your account.</p>
        {{#twoFactorWaiting}}
        <p class="hint">You began setting it up and have not entered a code yet.</p>
        <p><a class="button" href="/security/two-factor">Finish setting it up</a></p>
        {{/twoFactorWaiting}}
        {{^twoFactorWaiting}}
        <form method="post" action="/security/two-factor/begin">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <button>Set up two-factor sign-in</button>
        </form>
        {{/twoFactorWaiting}}
        {{/twoFactorSince}}
        </section>
        <section class="card">
        <h2>Where you are signed in</h2>
        <table class="log">
        <thead><tr><th scope="col">Device</th><th scope="col">From</th><th scope="col">Signed in</th><th scope="col">Last used</th><th scope="col"></th></tr></thead>
        <tbody>
        {{#sessions}}
        <tr><td>{{device}}{{#current}} <strong>(this one)</strong>{{/current}}</td><td data-label="From">{{address}}{{^address}}<span class="muted">not known</span>{{/address}}</td><td data-label="Signed in">{{signedIn}}</td><td data-label="Last used">{{lastUsed}}</td>
        <td><form method="post" action="/security/sessions/{{id}}/sign-out" class="inline-buttons">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="link">Sign out</button></form></td></tr>
        {{/sessions}}
        </tbody>
        </table>
        {{^others}}<p class="muted">You are signed in nowhere else.</p>{{/others}}
        </section>
        {{#hasDevices}}
        <section class="card" id="devices">
        <h2>Apps that sync your data</h2>
        <p class="hint">Each app that keeps your data offline registers here. Forget a lost or replaced phone: what it sent stays, and it can send nothing more until its app registers again. Signing it out is above.</p>
        <table class="log">
        <thead><tr><th scope="col">Device</th><th scope="col">Added</th><th scope="col"></th></tr></thead>
        <tbody>
        {{#devices}}
        <tr><td>{{label}}</td><td data-label="Added">{{added}}</td>
        <td><form method="post" action="/security/devices/{{id}}/forget" class="inline-buttons">
        <input type="hidden" name="_csrf" value="{{csrf}}"><button class="link">Forget</button></form></td></tr>
        {{/devices}}
        </tbody>
        </table>
        </section>
        {{/hasDevices}}
        <section class="card">
        <h2>Delete your account</h2>
        <p>Deletes your account and everything in it, for good. You can download a copy first.</p>
        <p><a class="button danger" href="/security/delete">Delete your account…</a></p>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let deleteAccount = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="/profile">Profile</a> › <a href="/security">Password and sign-ins</a> ›</p>
        <h1>Delete your account?</h1>
        {{#error}}<p class="error" role="alert">{{error}}</p>{{/error}}
        <section class="card">
        <p>This deletes the account <strong>{{username}}</strong> at once and for good, with everything in it:         {{#coach}}your templates, programs and publications, your links to your clients (they keep their own workouts;         what you assigned them and your comments on their workouts go with your account),         {{/coach}}{{^coach}}your workouts, templates, programs, measurements and runs, your links to coaches,         {{/coach}}your sessions and devices. It cannot be undone, and no one can restore it.</p>
        <p>To keep a copy, <a href="/export.json" download>download everything (JSON)</a> first.</p>
        <form method="post" action="/security/delete" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        \(field("password", "Your password", type: "password", extra: " autocomplete=\"current-password\" required"))
        {{#twoFactor}}
        \(field("code", "Code from your authenticator app, or a recovery code", extra: " autocomplete=\"one-time-code\" required"))
        {{/twoFactor}}
        <button class="danger">Delete my account for good</button> <a href="/security">Keep it</a>
        </form>
        </section>
        {{/page}}{{/body}}{{/layout}}
        """

    static let accountDeleted = """
        {{<layout}}{{$body}}
        <section class="narrow">
        <h1>Your account is deleted</h1>
        <p class="notice" role="status">Everything it held is gone, and every device it was signed in on is signed out.</p>
        <p><a href="/sign-in">Back to sign in</a></p>
        </section>
        {{/body}}{{/layout}}
        """

    static let twoFactorSetup = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="/profile">Profile</a> › <a href="/security">Password and sign-ins</a> ›</p>
        <h1>Set up two-factor sign-in</h1>
        <ol class="steps">
        <li><p>In an authenticator app on your phone (Google Authenticator, Microsoft Authenticator, 1Password, Aegis and others), add an account and scan this code:</p>
        <figure class="qr">{{{qr}}}</figure>
        <p class="hint">Cannot scan it? Type this key into the app instead, as a time-based key: <code class="key">{{key}}</code><br>
        On the phone itself, <a href="{{uri}}">open it in your authenticator app</a>.</p></li>
        <li><p>Enter the six-digit code the app now shows for Spotter.</p>
        <form method="post" action="/security/two-factor/confirm" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <input type="hidden" name="key" value="{{secret}}">
        \(field("code", "Code", extra: " autocomplete=\"one-time-code\" inputmode=\"numeric\" required autofocus"))
        <button>Turn on two-factor sign-in</button>
        </form></li>
        </ol>
        <p class="muted">Nothing changes until the code is accepted. <a href="/security">Back to Password and sign-ins</a></p>
        {{/page}}{{/body}}{{/layout}}
        """

    static let recoveryCodes = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="/profile">Profile</a> › <a href="/security">Password and sign-ins</a> ›</p>
        <h1>{{#turnedOn}}Two-factor sign-in is on{{/turnedOn}}{{^turnedOn}}New recovery codes{{/turnedOn}}</h1>
        <p class="notice" role="status">{{#turnedOn}}From now on, signing in asks for a code from your authenticator app after the password.{{/turnedOn}}{{^turnedOn}}Your earlier recovery codes no longer work.{{/turnedOn}}</p>
        <section class="card">
        <h2>Your recovery codes</h2>
        <p>If you lose your phone, each of these signs you in once instead of a code from the app. Keep them somewhere safe, apart from your phone: copy them into a password manager or print this page. <strong>They are shown only now.</strong></p>
        <ol class="recovery">{{#codes}}<li><code>{{.}}</code></li>{{/codes}}</ol>
        </section>
        <p><a class="button" href="/security">Done</a></p>
        {{/page}}{{/body}}{{/layout}}
        """

    static let importWorkouts = """
        {{<layout}}{{$body}}{{#page}}
        <p class="crumbs"><a href="/profile">Your profile</a> ›</p>
        <h1>Import workouts</h1>
        <p>Bring your history from Strong or Hevy (their CSV export) or from a Spotter export. Importing the same file again adds nothing, so you can import a newer export later.</p>
        <form method="post" action="/import" enctype="multipart/form-data" class="editor narrow-form">
        <input type="hidden" name="_csrf" value="{{csrf}}">
        <label for="file">File</label>
        <input id="file" name="file" type="file" accept=".csv,.json,text/csv,application/json" required{{#error}} aria-invalid="true" aria-describedby="file-error"{{/error}}>
        {{#error}}<p class="field-error" id="file-error">{{error}}</p>{{/error}}
        <fieldset class="units">
        <legend>From</legend>
        {{#formats}}<label class="check"><input type="radio" name="format" value="{{value}}" required{{#checked}} checked{{/checked}}> {{label}}</label>{{/formats}}
        {{#formatError}}<p class="field-error" role="alert">{{formatError}}</p>{{/formatError}}
        </fieldset>
        <fieldset class="units">
        <legend>Weights in the file</legend>
        {{#units}}<label class="check"><input type="radio" name="unit" value="{{value}}"{{#checked}} checked{{/checked}}> {{label}}</label>{{/units}}
        <p class="hint">Strong's export does not say whether it is in kilograms or pounds; Hevy's and Spotter's do.</p>
        </fieldset>
        \(field("time_zone", "Time zone of the file's times", extra: " list=\"time-zones\" autocomplete=\"off\" placeholder=\"{{profileTimeZone}}\""))
        <datalist id="time-zones">{{#timeZones}}<option value="{{.}}">{{/timeZones}}</datalist>
        <p class="hint">Strong and Hevy write local times without a zone. Empty: yours ({{profileTimeZone}}). After moving to another zone, give the one of your earlier imports, so the same workouts are found again rather than added hours apart.</p>
        <p><button>Import</button></p>
        </form>
        {{#report}}
        <section class="card" id="report">
        <h2>Imported {{filename}}</h2>
        <ul>
        <li>{{added}}</li>
        {{#unchanged}}<li>{{unchanged}}</li>{{/unchanged}}
        {{#created}}<li>{{created}}</li>{{/created}}
        {{#measurements}}<li>{{measurements}}</li>{{/measurements}}
        {{#plans}}<li>{{plans}}</li>{{/plans}}
        </ul>
        {{#hasSkipped}}<h3>Not imported</h3><ul>{{#skipped}}<li>{{name}}, {{date}}: {{reason}}</li>{{/skipped}}</ul>{{/hasSkipped}}
        {{#hasNotes}}<h3>Left out</h3><ul>{{#notes}}<li>{{.}}</li>{{/notes}}</ul>{{#moreNotes}}<p class="muted">{{moreNotes}}</p>{{/moreNotes}}{{/hasNotes}}
        </section>
        {{/report}}
        {{/page}}{{/body}}{{/layout}}
        """
}
