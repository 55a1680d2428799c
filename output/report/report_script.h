/* report_script.h - the one inline script of report.html (report_script.c): it reads the
 * page's embedded data (<script type="application/json"> elements "views" and "search") and
 *   - draws an object's view in the side panel when the address is #o=ADDR (every address
 *     link): class, states, size, the String's text, the decoded fields (output/decode's
 *     JSON: a reference as a link), the objects that reference it and the path from a root or
 *     why there is none;
 *   - lists, for #m=BEGIN-END (a click on a heap-map cell), the objects of the page that lie
 *     in the cell, with the cell's own counts;
 *   - answers the search box (#q) from the class names, the folded Strings and the
 *     indicators, each hit a link;
 *   - shows or hides the tables of classes that are not the app's (#all, "everything");
 *   - marks the DOM for tests: data-loaded="yes", data-errors (script errors counted by
 *     window.onerror), data-map-spaces (the heap map's groups).
 * It fetches nothing and writes nothing but the page's own DOM. */
#ifndef ARTCARVE_REPORT_SCRIPT_H
#define ARTCARVE_REPORT_SCRIPT_H

extern const char report_script[];

#endif
