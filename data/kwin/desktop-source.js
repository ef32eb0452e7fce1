/* locd's desktop source in KWin 5.27 (SEMANTICS L18).
 *
 * locd-agent loads this script over D-Bus (org.kde.kwin.Scripting.loadScript, plugin name "locd-desktop-source") and
 * unloads it when it stops. The script reports KWin's picture with callDBus to io.locd.Agent.Desktop, the name
 * locd-agent's desktop source owns: Report(picture) at /io/locd/DesktopSource (io.locd.DesktopSource1), once at start
 * and after each activation, window added or removed, minimised or restored, or desktop change. A picture is JSON:
 * each ordinary window with its process (KWin's pid: the credentials of the Wayland client's socket), whether it is
 * an X11 window (whose pid KWin takes from the client's own _NET_WM_PID, not believed), its desktop file name, its
 * resource class, whether it is active and whether it is hidden (minimised, or on a desktop not shown). Nothing runs
 * while the desktop is idle. */
var SERVICE = "io.locd.Agent.Desktop";
var PATH = "/io/locd/DesktopSource";
var IFACE = "io.locd.DesktopSource1";
var watched = [];

function text(value) {
    var string = value === undefined || value === null ? "" : String(value);
    return string.length > 0 ? string : null;
}

function describe(window, active) {
    var shownHere = window.onAllDesktops || window.desktop === workspace.currentDesktop;
    return {
        pid: window.pid > 0 && window.windowId === undefined ? window.pid : null,
        desktopId: text(window.desktopFileName),
        wmClass: text(window.resourceClass),
        focused: window === active,
        minimized: Boolean(window.minimized) || !shownHere
    };
}

function report() {
    var active = workspace.activeClient;
    var windows = [];
    var all = workspace.clientList();
    for (var i = 0; i < all.length && windows.length < 1024; i++) {
        if (all[i].normalWindow || all[i].dialog)
            windows.push(describe(all[i], active));
    }
    callDBus(SERVICE, PATH, IFACE, "Report", JSON.stringify({ locked: false, windows: windows }));
}

function watch(window) {
    if (!window || watched.indexOf(window) >= 0)
        return;
    watched.push(window);
    // KWin 5.27's windows say clientMinimized and clientUnminimized; later ones minimizedChanged.
    var signals = ["clientMinimized", "clientUnminimized", "minimizedChanged", "desktopChanged", "desktopFileNameChanged"];
    for (var i = 0; i < signals.length; i++) {
        if (window[signals[i]] && window[signals[i]].connect)
            window[signals[i]].connect(report);
    }
}

function added(window) {
    watch(window);
    report();
}

function removed(window) {
    var index = watched.indexOf(window);
    if (index >= 0)
        watched.splice(index, 1);
    report();
}

var existing = workspace.clientList();
for (var i = 0; i < existing.length; i++)
    watch(existing[i]);
workspace.clientActivated.connect(report);
workspace.clientAdded.connect(added);
workspace.clientRemoved.connect(removed);
workspace.currentDesktopChanged.connect(report);
report();
