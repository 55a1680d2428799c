#!/usr/bin/python3
"""report_browser.py - report.html driven in headless Chromium (Selenium + Debian's
chromium-driver) as an investigator uses it.  Prints "ok - ..." / "not ok - ..." lines (the
shell test counts them) and exits 1 when the browser does not start.

usage: report_browser.py HTML --app CLASS [--truth TRUTH.jsonl] [--shot PNG]

  - the page loads with no script error; the first screen (1280x900) shows a table of the
    app's dropped objects, CLASS's or another app class's, with a decoded row;
  - the first screen names CLASS among the dropped section's classes (the line of links
    above its tables; a section of one table has none, then that table is CLASS's), and that
    link leads to CLASS's table;
  - --truth: every dropped (allocated, unreachable) object of CLASS in the truth is a row of
    CLASS's dropped table with each String field's text (of the allocated Strings: a String
    the truth has freed may be gone), each long field read as a time (as ISO 8601 UTC, the
    decoder's form) and, for a field referencing an object (a sender), that object's first
    String text, in that row;
  - typing CLASS's last name part into the search box lists CLASS; following the hit
    shows its table; typing the text of a dropped String lists it and following the hit opens
    that String's view with the text;
  - an address link of CLASS's dropped table opens the object's view: its class, its decoded
    fields and why no root reaches it; a live object of CLASS (when the page lists one) has
    a path from a root ending at it;
  - the first indicator of the page is found by the search box and its hit opens the view of
    the object holding it;
  - a click on a heap-map cell lists the page's objects in it.
"""
import argparse
import datetime
import json
import os
import sys
import tempfile

from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

FAILS = 0


def ok(msg):
    print("ok - " + msg)


def bad(msg):
    global FAILS
    FAILS += 1
    print("not ok - " + msg)


def check(cond, msg_ok, msg_bad):
    (ok if cond else bad)(msg_ok if cond else msg_bad)
    return cond


def browser(profile):
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--hide-scrollbars",
              "--window-size=1280,900", "--user-data-dir=" + profile):
        opts.add_argument(a)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)


def iso(ms):
    t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
    s = t.strftime("%Y-%m-%dT%H:%M:%S")
    return s + (".%03dZ" % (ms % 1000) if ms % 1000 else "Z")


def table_of(d, cls):
    """The dropped table (div.ct) whose heading names cls exactly."""
    for div in d.find_elements(By.CSS_SELECTOR, "#dropped ~ div.ct[id^=d]"):
        h = div.find_element(By.TAG_NAME, "h3")
        if h.text.split(" ")[0] == cls:
            return div
    return None


def rows_by_addr(div):
    out = {}
    for tr in div.find_elements(By.CSS_SELECTOR, "tr"):
        links = tr.find_elements(By.CSS_SELECTOR, "td:first-child a.a")
        if links:
            out[links[0].text] = tr.text
    return out


def truth_check(d, div, truth, cls):
    recs = [json.loads(l) for l in open(truth)]
    by = {r["addr"]: r for r in recs}
    dropped = [r for r in recs if r["class"] == cls and r["alloc"] == "allocated" and r["reach"] == "unreachable"]
    rows = rows_by_addr(div) if div else {}
    missing, freed = [], 0
    for r in dropped:
        want = []
        for f in r["fields"]:
            v = f["value"]
            if f["type"] == "Ljava/lang/String;" and v and by[v]["alloc"] != "allocated":
                freed += 1   # the String itself was freed: its text is the carver's to find, if at all
            elif f["type"] == "Ljava/lang/String;" and v:
                want.append(by[v]["string"])
            elif f["type"] == "J" and isinstance(v, int) and 946684800000 <= v < 2208988800000:
                want.append(iso(v))
            elif f["type"].startswith("L") and v and by.get(v, {}).get("kind") == "instance":
                # an object (a sender) is shown by its String fields: the first one's text
                held = [by.get(g["value"]) for g in by[v]["fields"]
                        if g["type"] == "Ljava/lang/String;" and g["value"]]
                held = [h for h in held if h and h["alloc"] == "allocated" and "string" in h]
                if held:
                    want.append(held[0]["string"][:40])
        row = rows.get(r["addr"])
        if row is None or any(w not in row for w in want):
            missing.append((r["addr"], want, row))
    check(dropped and not missing,
          "every dropped %s of the truth (%d) is a row of the page's dropped table with its texts, times and the texts of the objects it references "
          "(%d String fields name a String the truth has freed: not required) (e.g. %s)" %
          (cls, len(dropped), freed, rows.get(dropped[0]["addr"]) if dropped else ""),
          "%d of %d dropped %s of the truth not shown with their fields: %s" %
          (len(missing), len(dropped), cls, missing[:3]))
    return dropped


def wait_view(d, what):
    try:
        WebDriverWait(d, 10).until(lambda x: x.find_element(By.ID, "view").is_displayed()
                                   and x.find_element(By.ID, what))
        return d.find_element(By.ID, what)
    except WebDriverException:
        return None


def search(d, text):
    q = d.find_element(By.ID, "q")
    q.clear()
    q.send_keys(text)
    WebDriverWait(d, 10).until(lambda x: x.find_element(By.ID, "hits").text != "")
    return d.find_elements(By.CSS_SELECTOR, "#hits a")


def first_screen(d, cls):
    h2 = d.find_elements(By.TAG_NAME, "h2")
    first = h2[0].text if h2 else ""
    vis = d.execute_script(
        "var r=[];document.querySelectorAll('.ct.app tr').forEach(function(t){var b=t.getBoundingClientRect();"
        "if(t.querySelector('td a.a')&&b.top>=0&&b.bottom<=innerHeight)r.push(t.innerText);});return r;")
    check(first.startswith("Dropped objects") and vis,
          "first screen: the first section is '%s'; %d decoded rows of the app's dropped objects visible, "
          "the first: %s" % (first, len(vis), vis[0] if vis else ""),
          "first screen: first section '%s', %d app rows visible" % (first, len(vis)))


def follow_index(d, cls):
    """The dropped section's line of classes names cls on the first screen; its link leads to
    cls's table.  A section of one table has no such line: that table must be cls's."""
    toc = d.find_elements(By.CSS_SELECTOR, "#dropped ~ p.toc")
    if not toc:
        div = d.find_elements(By.CSS_SELECTOR, "#dropped ~ div.ct[id^=d]")
        check(len(div) == 1 and table_of(d, cls) == div[0],
              "first screen: the dropped section's one table is %s's (no line of classes)" % cls,
              "no line of classes above the dropped tables, and %d tables" % len(div))
        return
    links = [a for a in toc[0].find_elements(By.TAG_NAME, "a") if a.text == cls and a.is_displayed()]
    seen = d.execute_script("var b=arguments[0].getBoundingClientRect();return b.top>=0&&b.bottom<=innerHeight;",
                            links[0]) if links else False
    if not check(links and seen, "first screen: the line of dropped classes names %s: %s" % (cls, toc[0].text),
                 "first screen: the line of dropped classes does not show %s (link %s, in view %s): %s" %
                 (cls, bool(links), seen, toc[0].text[:300])):
        return
    href = links[0].get_attribute("href").split("#")[1]
    links[0].click()
    target = d.find_element(By.ID, href)
    top = d.execute_script("return arguments[0].getBoundingClientRect().top/innerHeight", target)
    check(target == table_of(d, cls) and target.is_displayed() and 0 <= top < 0.5,
          "its link leads to the table of %s (#%s), brought to the top half of the window" % (cls, href),
          "its link #%s does not bring %s's table to the top half of the window (its top at %.2f)" %
          (href, cls, top))
    d.execute_script("window.scrollTo(0,0);history.replaceState(null,'',location.pathname);")


def follow_class(d, cls):
    short = cls.split(".")[-1]
    hits = [a for a in search(d, short) if a.text == cls]
    if not check(hits, "search '%s' lists the class %s" % (short, cls),
                 "search '%s' does not list %s: %s" % (short, cls, d.find_element(By.ID, "hits").text[:300])):
        return
    href = hits[0].get_attribute("href").split("#")[1]
    hits[0].click()
    target = d.find_element(By.ID, href)
    check(d.execute_script("return location.hash") == "#" + href and target.is_displayed(),
          "following the hit shows the table #%s: %s" % (href, target.text.split("\n")[0]),
          "following the hit: hash %s, table shown %s" % (d.execute_script("return location.hash"),
                                                          target.is_displayed()))


def follow_string(d, text):
    hits = [a for a in search(d, text) if a.text == json.dumps(text, ensure_ascii=False)]
    if not check(hits, "search '%s' lists the String" % text,
                 "search '%s': no String hit: %s" % (text, d.find_element(By.ID, "hits").text[:300])):
        return
    hits[0].click()
    t = wait_view(d, "vtext")
    check(t is not None and json.loads(t.text) == text, "its view shows the text %s" % (t.text if t else ""),
          "the String's view: %s" % (d.find_element(By.ID, "view").text[:300]))


def follow_object(d, div, cls, want_path):
    link = div.find_element(By.CSS_SELECTOR, "td:first-child a.a")
    addr = link.text
    link.click()
    h = wait_view(d, "vh")
    view = d.find_element(By.ID, "view").text
    fields = d.find_elements(By.ID, "vfields")
    if want_path:
        path = d.find_elements(By.CSS_SELECTOR, "#vpath li")
        check(h is not None and cls in h.text and fields and len(path) >= 2 and path[0].text.startswith("root:")
              and path[-1].text.startswith(addr),
              "live %s %s: its view has decoded fields and a path from a root: %s" %
              (cls, addr, " / ".join(p.text for p in path)),
              "live %s %s: view %s" % (cls, addr, view[:400]))
    else:
        why = d.find_elements(By.ID, "vwhy")
        check(h is not None and cls in h.text and fields and why and "dropped" in why[0].text,
              "dropped %s %s: its view has decoded fields (%s) and says: %s" %
              (cls, addr, fields[0].text.replace("\n", " ")[:120] if fields else "", why[0].text if why else ""),
              "dropped %s %s: view %s" % (cls, addr, view[:400]))


def follow_indicator(d):
    rows = d.find_elements(By.CSS_SELECTOR, "#indtab tr")[1:]
    if not check(rows, "the indicators section lists %d values, the first: %s" %
                 (len(rows), rows[0].text if rows else ""), "no indicator in the page"):
        return
    cells = rows[0].find_elements(By.TAG_NAME, "td")
    value, addr = cells[1].text, cells[4].find_element(By.CSS_SELECTOR, "a.a").text
    hits = [a for a in search(d, value[:40]) if a.text == value]
    if not check(hits, "search '%s' lists the indicator" % value[:40],
                 "search '%s': no indicator hit: %s" % (value[:40], d.find_element(By.ID, "hits").text[:300])):
        return
    hits[0].click()
    h = wait_view(d, "vh")
    check(h is not None and addr in h.text, "following it opens the view of %s" % h.text if h else "",
          "the indicator's view: %s (want %s)" % (d.find_element(By.ID, "view").text[:200], addr))


def map_cell(d):
    n = d.execute_script(
        "var gs=document.querySelectorAll('#heapmap g[data-b]');for(var i=0;i<gs.length;i++){"
        "var b=parseInt(gs[i].getAttribute('data-b'),16),e=parseInt(gs[i].getAttribute('data-e'),16);"
        "for(var a in V){var x=parseInt(a,16);if(x>=b&&x<e){gs[i].querySelector('rect')"
        ".dispatchEvent(new MouseEvent('click',{bubbles:true}));return a;}}}return null;")
    c = wait_view(d, "cellcount")
    items = d.find_elements(By.CSS_SELECTOR, "#cellobjs li")
    check(n and c is not None and any(li.text.startswith(n) for li in items),
          "a click on the heap-map cell holding %s lists it: %s" % (n, c.text[:100] if c else ""),
          "heap-map cell click: object %s, panel %s" % (n, d.find_element(By.ID, "view").text[:200]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("html")
    ap.add_argument("--app", required=True)
    ap.add_argument("--truth")
    ap.add_argument("--shot")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as profile:
        try:
            d = browser(profile)
        except WebDriverException as ex:
            print("not ok - Chromium did not start through chromedriver: %s" % str(ex).splitlines()[0])
            return 1
        try:
            d.get("file://" + os.path.abspath(a.html))
            WebDriverWait(d, 60).until(lambda x: x.execute_script(
                "return document.documentElement.getAttribute('data-loaded')") == "yes")
            errs = d.execute_script("return document.documentElement.getAttribute('data-errors')")
            check(errs == "0", "the page loaded with 0 script errors", "script errors: %s" % errs)
            if a.shot:
                d.save_screenshot(a.shot)
            first_screen(d, a.app)
            follow_index(d, a.app)
            div = table_of(d, a.app)
            check(div is not None, "the page has a table of dropped %s" % a.app, "no dropped table of %s" % a.app)
            if a.truth:
                truth_check(d, div, a.truth, a.app)
            follow_class(d, a.app)
            if div is not None:
                follow_object(d, div, a.app, False)
            live = d.find_elements(By.CSS_SELECTOR, "#live ~ div.ct.app[id^=l]")
            if live:
                follow_object(d, live[0], live[0].find_element(By.TAG_NAME, "h3").text.split(" ")[0], True)
            else:
                bad("no table of the app's live objects")
            strings = d.find_elements(By.CSS_SELECTOR, "#strtab tr.app td.s")
            if strings:
                follow_string(d, strings[0].text[1:-1])
            else:
                bad("no String the app holds in the Strings section")
            follow_indicator(d)
            map_cell(d)
        finally:
            d.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
