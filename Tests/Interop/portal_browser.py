#!/usr/bin/env python3
"""The coach portal in a real browser: headless Chromium driven by Selenium over HTTPS.

A coach signs in, finds a client, opens a workout, adds a comment, opens a progress chart (the SVG
has one point per training day), opens statistics and assigns a program; the lifter signs in in a
second browser and takes back the details scope; the coach's next page view says it is not shared.
With --screenshots DIR it saves the main pages as PNG (a laptop and a 375 px phone).

    portal_browser.py --portal https://127.0.0.1:8444 --coach carla --lifter lena \
        --lifter-name Lena --client ID --training-days 3 --program 'Strength block' [--screenshots DIR]

The accounts and their data are made by the caller (Tests/SpotterServerTests/PortalBrowserTests.swift).
Prints one line per check and `portal browser: N of N checks passed`; exits 1 when any failed.
"""

import argparse
import pathlib
import shutil
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from checks import Checks  # noqa: E402

from selenium import webdriver  # noqa: E402
from selenium.common.exceptions import WebDriverException  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import Select, WebDriverWait  # noqa: E402


def browser(width, height):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--ignore-certificate-errors", "--window-size=1280,900", "--hide-scrollbars"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"),
                              options=options)
    driver.set_page_load_timeout(30)
    # A headless window is at least 500 px wide: the page's viewport is set instead, as a phone's is.
    emulate(driver, width, height)
    return driver


def emulate(driver, width, height):
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 500})


def navigate(driver, action):
    """Runs `action` (a click or submit that loads a page) and waits until the next page has loaded."""
    driver.execute_script("window.spotterOldPage = true")

    def next_page_loaded(d):
        try:
            return d.execute_script("return !window.spotterOldPage && document.readyState === 'complete'")
        except WebDriverException:  # the page is being replaced
            return False

    action()
    WebDriverWait(driver, 15).until(next_page_loaded)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--portal", required=True)
    parser.add_argument("--coach", required=True)
    parser.add_argument("--lifter", required=True)
    parser.add_argument("--client", required=True, help="the lifter's tenant id")
    parser.add_argument("--lifter-name", required=True, help="the lifter's display name")
    parser.add_argument("--training-days", type=int, required=True)
    parser.add_argument("--program", required=True, help="the name of the coach's program to assign")
    parser.add_argument("--screenshots")
    args = parser.parse_args()
    portal = args.portal.rstrip("/")
    shots = pathlib.Path(args.screenshots) if args.screenshots else None
    if shots:
        shots.mkdir(parents=True, exist_ok=True)
    check = Checks()

    def snap(driver, name):
        if shots:
            # The whole page from its top, not just the window: the viewport grows to the page's height.
            driver.execute_script("window.scrollTo(0, 0)")
            width, height = driver.execute_script("return [window.innerWidth, window.innerHeight]")
            page_height = driver.execute_script("return document.documentElement.scrollHeight")
            emulate(driver, width, max(height, min(page_height, 4000)))
            driver.save_screenshot(str(shots / f"{name}.png"))
            emulate(driver, width, height)

    def sign_in(driver, login):
        driver.get(portal + "/")
        driver.find_element(By.ID, "login").send_keys(login)
        driver.find_element(By.ID, "password").send_keys("long enough " + login)
        navigate(driver, driver.find_element(By.CSS_SELECTOR, "form[action='/sign-in'] button").click)

    coach = browser(1280, 900)
    lifter = browser(1280, 900)
    phone = browser(375, 800)
    try:
        # A newcomer signs up on a phone: the script fills the time zone with the browser's own.
        phone.get(portal + "/sign-in")
        navigate(phone, phone.find_element(By.LINK_TEXT, "Create an account").click)
        zone = phone.find_element(By.ID, "time_zone").get_attribute("value")
        browser_zone = phone.execute_script("return Intl.DateTimeFormat().resolvedOptions().timeZone")
        check("the sign-up form starts with the browser's time zone", zone != "" and zone == browser_zone,
              f"{zone!r} against {browser_zone!r}")
        check("on a phone the sign-up form has no horizontal scroll",
              phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"))
        phone.find_element(By.CSS_SELECTOR, "input[name='kind'][value='coach']").click()
        phone.find_element(By.ID, "display_name").send_keys("Nora Newcomer")
        phone.find_element(By.ID, "username").send_keys("nora")
        phone.find_element(By.ID, "email").send_keys("nora@example.com")
        phone.find_element(By.ID, "password").send_keys("long enough nora")
        phone.find_element(By.ID, "password_again").send_keys("long enough nora")
        snap(phone, "phone-sign-up")
        navigate(phone, phone.find_element(By.CSS_SELECTOR, "form[action='/sign-up'] button").click)
        welcome = phone.find_element(By.CSS_SELECTOR, "#verify .notice").text
        check("signed up, the coach is signed in and told where the link went",
              phone.current_url.endswith("/profile?welcome=1") and "nora@example.com" in welcome, welcome)
        phone.delete_all_cookies()

        coach.get(portal + "/sign-in")
        snap(coach, "sign-in")
        sign_in(coach, args.coach)
        check("the coach signs in and lands on the client list",
              coach.current_url == portal + "/clients" and coach.find_element(By.TAG_NAME, "h1").text == "Clients",
              coach.current_url)
        cookie = coach.get_cookie("__Host-spotter_session") or {}
        check("the session cookie is Secure, HttpOnly and SameSite=Lax",
              cookie.get("secure") and cookie.get("httpOnly") and cookie.get("sameSite") == "Lax", str(cookie))
        snap(coach, "clients")

        search = coach.find_element(By.ID, "q")
        search.send_keys(args.lifter_name[:4])
        navigate(coach, search.submit)
        links = coach.find_elements(By.CSS_SELECTOR, f"a[href='/clients/{args.client}']")
        check("searching finds the client", len(links) == 1, coach.current_url)
        navigate(coach, links[0].click)
        workouts = coach.find_elements(By.CSS_SELECTOR, "a.card.workout")
        check("the client's history lists the workouts", len(workouts) == args.training_days, str(len(workouts)))
        snap(coach, "client")

        navigate(coach, workouts[0].click)
        workout_url = coach.current_url
        sets = coach.find_elements(By.CSS_SELECTOR, "table.sets tbody tr")
        check("the workout shows every set", len(sets) > 0, str(len(sets)))
        Select(coach.find_element(By.ID, "target")).select_by_index(2)
        coach.find_element(By.ID, "body").send_keys("Great depth on the second set. Keep the bar over mid-foot.")
        navigate(coach, coach.find_element(By.CSS_SELECTOR, "form.comment-form button").click)
        comments = [element.text for element in coach.find_elements(By.CSS_SELECTOR, ".comment .body")]
        check("the comment is added and shown", "Great depth on the second set. Keep the bar over mid-foot." in comments,
              str(comments))
        snap(coach, "workout")

        # A reply e-mail's link to the comments, opened signed out: signing in leads back to them.
        phone.get(workout_url + "#comments")
        check("the link asks to sign in first", "/sign-in?next=" in phone.current_url, phone.current_url)
        phone.find_element(By.ID, "login").send_keys(args.coach)
        phone.find_element(By.ID, "password").send_keys("long enough " + args.coach)
        navigate(phone, phone.find_element(By.CSS_SELECTOR, "form[action='/sign-in'] button").click)
        check("signed in, the coach is at the workout's comments", phone.current_url == workout_url + "#comments",
              phone.current_url)
        phone.delete_all_cookies()

        navigate(coach, coach.find_element(By.CSS_SELECTOR, "section.exercise h2 a").click)
        progress_url = coach.current_url
        points = coach.find_elements(By.CSS_SELECTOR, "figure.chart svg circle.point")
        check(f"the progress chart has one point per training day ({args.training_days})",
              len(points) == args.training_days, str(len(points)))
        titles = [point.find_element(By.TAG_NAME, "title").get_attribute("textContent") for point in points]
        check("each point's title names its set and formula", all("→ e1RM" in t and t.endswith(("(Epley)", "(Brzycki)", "reps in reserve)", "rep in reserve)")) for t in titles),
              str(titles[:2]))
        snap(coach, "progress")

        coach.get(f"{portal}/clients/{args.client}/statistics")
        bars = coach.find_elements(By.CSS_SELECTOR, "figure.chart svg rect.bar")
        check("statistics draws one bar per week", len(bars) >= 1, str(len(bars)))
        snap(coach, "statistics")

        coach.get(f"{portal}/clients/{args.client}/body")
        points = coach.find_elements(By.CSS_SELECTOR, "figure.chart svg circle.point")
        check("the body page draws the client's weigh-ins", len(points) == 3, str(len(points)))
        snap(coach, "body")

        coach.get(f"{portal}/clients/{args.client}")
        Select(coach.find_element(By.ID, "item")).select_by_visible_text("Program: " + args.program)
        navigate(coach, coach.find_element(By.CSS_SELECTOR, "#plans form.inline button").click)
        assigned = coach.find_element(By.ID, "plans").text
        check("the program is assigned", args.program in assigned and "Unassign" in assigned, assigned)

        coach.get(portal + "/programs")
        program_links = coach.find_elements(By.CSS_SELECTOR, "section.card h2 a")
        if program_links:
            navigate(coach, program_links[0].click)
        snap(coach, "program-editor")
        # A day's menu is too narrow for a long name: the whole name stands under it, and follows the menu.
        menus = coach.find_elements(By.CSS_SELECTOR, "table.program select[data-name]")
        check("the program editor has a menu per day", len(menus) >= 7, str(len(menus)))
        if menus:
            menu = Select(menus[-1])
            menu.select_by_index(len(menu.options) - 1)
            caption = coach.find_element(By.ID, menus[-1].get_attribute("data-name")).text
            check("a day's caption names the template picked", caption == menu.first_selected_option.text,
                  f"{caption!r} against {menu.first_selected_option.text!r}")
            menu.select_by_index(0)
            caption = coach.find_element(By.ID, menus[-1].get_attribute("data-name")).text
            check("a rest day's caption is empty", caption == "", repr(caption))
        coach.get(portal + "/templates")
        template_links = coach.find_elements(By.CSS_SELECTOR, "section.card h2 a")
        if template_links:
            navigate(coach, template_links[0].click)
        snap(coach, "template-editor")
        # The coach publishes the program in Discover and lists in the coach directory.
        coach.get(portal + "/programs")
        publish_links = coach.find_elements(By.PARTIAL_LINK_TEXT, "Publish in Discover")
        check("each program offers publishing", len(publish_links) > 0, coach.current_url)
        navigate(coach, publish_links[0].click)
        navigate(coach, coach.find_element(By.CSS_SELECTOR, "form.editor button").click)
        errors = [element.text for element in coach.find_elements(By.CSS_SELECTOR, "form.editor .field-error")]
        check("publishing without a difficulty or category names both",
              "Choose a difficulty." in errors and "Choose one to three categories." in errors, str(errors))
        coach.find_element(By.CSS_SELECTOR, "input[name='difficulty'][value='intermediate']").click()
        coach.find_element(By.CSS_SELECTOR, "input[name='categories'][value='strength']").click()
        coach.find_element(By.ID, "description").send_keys("Twelve weeks of squat, bench and deadlift.")
        navigate(coach, coach.find_element(By.CSS_SELECTOR, "form.editor button").click)
        notice = coach.find_element(By.CSS_SELECTOR, "p.notice").text
        check("the program is published as version 1", "Published as version 1" in notice, notice)
        snap(coach, "publish")
        coach.get(portal + "/programs")
        check("the program list says it is public", "Public as version 1" in coach.find_element(By.TAG_NAME, "main").text)
        coach.get(portal + "/profile")
        check("the profile page shows the tier and the client limit",
              "clients in use" in coach.find_element(By.CSS_SELECTOR, "section.tier").text)
        coach.find_element(By.CSS_SELECTOR, "#directory input[name='listed']").click()
        coach.find_element(By.ID, "highlights").send_keys("Coached 40 lifters to their first meet")
        navigate(coach, coach.find_element(By.CSS_SELECTOR, "#directory button").click)
        check("the directory listing is saved", "Saved." in coach.find_element(By.ID, "directory").text and
              coach.find_element(By.CSS_SELECTOR, "#directory input[name='listed']").is_selected())
        snap(coach, "profile")
        coach.get(portal + "/security")
        cards = [h.text for h in coach.find_elements(By.CSS_SELECTOR, "section.card h2")]
        check("the security page has its cards, deleting the account last",
              cards[:1] == ["Change your password"] and cards[-1:] == ["Delete your account"]
              and "Username" in cards and "E-mail address" in cards, str(cards))
        snap(coach, "security")
        navigate(coach, coach.find_element(By.CSS_SELECTOR, "form[action='/security/two-factor/begin'] button").click)
        check("two-factor set-up shows a QR code and its key",
              coach.find_elements(By.CSS_SELECTOR, "figure.qr svg") and
              len(coach.find_element(By.CSS_SELECTOR, "code.key").text.replace(" ", "")) == 32)
        snap(coach, "two-factor")

        sign_in(lifter, args.lifter)
        check("the lifter signs in and lands on their coaches", lifter.current_url == portal + "/coaches",
              lifter.current_url)
        details = lifter.find_element(By.CSS_SELECTOR, "input[name='scopes'][value='details']")
        check("details is shared before", details.is_selected())
        details.click()
        navigate(lifter, lifter.find_element(By.CSS_SELECTOR, "form.scopes button").click)
        details = lifter.find_element(By.CSS_SELECTOR, "input[name='scopes'][value='details']")
        check("the lifter took back the details scope", not details.is_selected())
        snap(lifter, "coaches")
        lifter.get(portal + "/access-log")
        rows = lifter.find_elements(By.CSS_SELECTOR, "table.log tbody tr")
        check("the access log lists the coach's reads", len(rows) >= 3, str(len(rows)))
        snap(lifter, "access-log")
        # The lifter brings a Strong export in through the file input.
        lifter.get(portal + "/import")
        sample = pathlib.Path(__file__).resolve().parent.parent / "SpotterPostgresTests" / "Imports" / "strong.csv"
        lifter.find_element(By.ID, "file").send_keys(str(sample))
        lifter.find_element(By.CSS_SELECTOR, "input[name='format'][value='strong']").click()
        lifter.find_element(By.CSS_SELECTOR, "input[name='unit'][value='lb']").click()
        navigate(lifter, lifter.find_element(By.CSS_SELECTOR, "form[action='/import'] button").click)
        report = lifter.find_element(By.ID, "report").text
        check("the import report says what was added", "2 workouts added (9 sets)." in report and "Row 6 repeats row 5" in report, report[:300])
        snap(lifter, "import")

        coach.get(workout_url)
        text = coach.find_element(By.TAG_NAME, "main").text
        check("the coach's next page view says the details are not shared",
              f"{args.lifter_name} has not shared the details of their workouts with you." in text, text[:200])
        check("and no set is shown", not coach.find_elements(By.CSS_SELECTOR, "table.sets"))

        sign_in(phone, args.coach)
        check("on a 375 px phone the client list has no horizontal scroll",
              phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"))
        snap(phone, "phone-clients")
        phone.get(progress_url)
        check("on a phone the progress page has no horizontal scroll",
              phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"))
        # The chart is wider than the phone: its frame scrolls, and opens on the newest point.
        shown = phone.execute_script("""
            const frame = document.querySelector('figure.chart .scroll');
            const box = frame.getBoundingClientRect();
            const rights = [...frame.querySelectorAll('circle.point')].map(p => p.getBoundingClientRect());
            const newest = rights.reduce((a, b) => b.right > a.right ? b : a);
            return [frame.scrollWidth > frame.clientWidth, newest.left >= box.left && newest.right <= box.right + 1];""")
        check("on a phone the progress chart scrolls in its frame and opens on the newest point", shown == [True, True],
              str(shown))
        snap(phone, "phone-progress")
        phone.get(portal + "/security")
        check("on a phone the security page has no horizontal scroll",
              phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1"))
        snap(phone, "phone-security")
        phone.get(portal + "/feedback")
        check("on a phone the feedback page has no horizontal scroll and its form",
              phone.execute_script("return document.documentElement.scrollWidth <= window.innerWidth + 1")
              and len(phone.find_elements(By.CSS_SELECTOR, "form[action='/feedback'] textarea#body")) == 1)
        snap(phone, "phone-feedback")
        phone.get(progress_url)
        # Its value labels stay at the frame's left edge, each level with its grid line, when the
        # chart opens at its right end and when it is scrolled back to its start.
        labels_js = """
            const frame = document.querySelector('figure.chart .scroll');
            if (arguments[0]) { frame.scrollLeft = arguments[0] === 'start' ? -frame.scrollWidth : 0; }
            const box = frame.getBoundingClientRect();
            const texts = [...frame.querySelectorAll('svg.axis text')];
            const lines = [...frame.querySelectorAll('svg.plot line')].map(l => l.getBoundingClientRect().top);
            return texts.map(t => {
                const r = t.getBoundingClientRect();
                const level = lines.some(y => Math.abs((r.top + r.bottom) / 2 - y) < 4);
                return [r.left >= box.left - 1 && r.right <= box.left + 90, level, t.textContent];
            });"""
        for where, scroll in (("opened at the newest point", None), ("scrolled back to its start", "start")):
            labels = phone.execute_script(labels_js, scroll)
            check(f"on a phone the chart's value labels stay in view, level with their lines ({where})",
                  len(labels) >= 2 and all(inside and level for inside, level, _ in labels), str(labels))
        # The lifter's access log on a phone: each read a card, its "What" whole within the screen.
        phone.delete_all_cookies()
        sign_in(phone, args.lifter)
        phone.get(portal + "/access-log")
        fits = phone.execute_script("""
            const cells = [...document.querySelectorAll('table.log td')];
            return [cells.length > 0, document.documentElement.scrollWidth <= window.innerWidth + 1,
                    cells.every(c => c.getBoundingClientRect().right <= window.innerWidth + 1)];""")
        check("on a phone the access log fits the screen, every entry whole", fits == [True, True, True], str(fits))
        coach.get(progress_url)
        labels = coach.execute_script(labels_js, None)
        check("on a laptop the labels' copy lies level with the plot's own lines",
              len(labels) >= 2 and all(level for _, level, _ in labels), str(labels))
    finally:
        coach.quit()
        lifter.quit()
        phone.quit()
    return check.finish("portal browser")


if __name__ == "__main__":
    sys.exit(main())
