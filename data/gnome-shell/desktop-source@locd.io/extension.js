/* locd's desktop source in GNOME Shell 43 (legacy imports; SEMANTICS L16).
 *
 * Exports /io/locd/DesktopSource (io.locd.DesktopSource1) on the shell's own session bus connection, the one that owns
 * org.gnome.Shell, which is the only sender locd-agent believes: GetPicture() answers the picture now, and
 * PictureChanged(picture) is emitted when it changes. A picture is JSON: whether the session is locked or its screen
 * blank, and each ordinary window with its process, its GTK application id, its sandbox's app id, the desktop id the
 * shell's WindowTracker gives it, its WM_CLASS, whether it has the focus and whether it is hidden (minimised, or on a
 * workspace not shown). Changes are gathered in one idle callback after the events that caused them: nothing runs
 * while the desktop is idle. Everything connected is disconnected in disable(), so other extensions are untouched. */
const { Gio, GLib, Meta, Shell } = imports.gi;
const Main = imports.ui.main;

const PATH = '/io/locd/DesktopSource';
const IFACE = `<node>
  <interface name="io.locd.DesktopSource1">
    <method name="GetPicture"><arg type="s" direction="out" name="picture"/></method>
    <signal name="PictureChanged"><arg type="s" name="picture"/></signal>
  </interface>
</node>`;

/* The windows a person sees as windows: not menus, tooltips or the shell's own surfaces. */
const SHOWN_TYPES = [Meta.WindowType.NORMAL, Meta.WindowType.DIALOG, Meta.WindowType.MODAL_DIALOG];

function describe(window, focused, workspace) {
    const app = Shell.WindowTracker.get_default().get_window_app(window);
    const desktopId = app && !app.is_window_backed() ? app.get_id() : null;
    const shownHere = window.is_on_all_workspaces() || window.get_workspace() === workspace;
    return {
        pid: window.get_pid() > 0 ? window.get_pid() : null,
        gtkApplicationId: window.get_gtk_application_id(),
        sandboxedAppId: window.get_sandboxed_app_id(),
        desktopId: desktopId,
        wmClass: window.get_wm_class(),
        focused: window === focused,
        minimized: window.minimized || !shownHere,
    };
}

class DesktopSource {
    constructor() {
        this._exported = null;
        this._connections = [];
        this._windowConnections = new Map();
        this._idle = 0;
        this._last = null;
    }

    GetPicture() {
        return this._picture();
    }

    _picture() {
        const focused = global.display.focus_window;
        const workspace = global.workspace_manager.get_active_workspace();
        const windows = global.display.list_all_windows()
            .filter(w => !w.is_override_redirect() && SHOWN_TYPES.includes(w.get_window_type()))
            .slice(0, 1024)
            .map(w => describe(w, focused, workspace));
        const shield = Main.screenShield;
        const locked = Main.sessionMode.isLocked || (shield ? shield.locked || shield.active : false);
        return JSON.stringify({ locked: Boolean(locked), windows: windows });
    }

    _changed() {
        if (this._idle)
            return;
        this._idle = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
            this._idle = 0;
            const picture = this._picture();
            if (picture !== this._last && this._exported) {
                this._last = picture;
                this._exported.emit_signal('PictureChanged', new GLib.Variant('(s)', [picture]));
            }
            return GLib.SOURCE_REMOVE;
        });
    }

    _follow(object, signals) {
        for (const signal of signals)
            this._connections.push([object, object.connect(signal, () => this._changed())]);
    }

    _watchWindow(window) {
        if (this._windowConnections.has(window))
            return;
        const ids = ['notify::minimized', 'workspace-changed', 'notify::gtk-application-id', 'notify::wm-class']
            .map(signal => window.connect(signal, () => this._changed()));
        ids.push(window.connect('unmanaged', () => {
            this._unwatchWindow(window);
            this._changed();
        }));
        this._windowConnections.set(window, ids);
    }

    _unwatchWindow(window) {
        for (const id of this._windowConnections.get(window) || [])
            window.disconnect(id);
        this._windowConnections.delete(window);
    }

    enable() {
        this._exported = Gio.DBusExportedObject.wrapJSObject(IFACE, this);
        this._exported.export(Gio.DBus.session, PATH);
        this._follow(global.display, ['notify::focus-window']);
        this._connections.push([global.display, global.display.connect('window-created', (_display, window) => {
            this._watchWindow(window);
            this._changed();
        })]);
        this._follow(global.workspace_manager, ['active-workspace-changed']);
        this._follow(Main.sessionMode, ['updated']);
        if (Main.screenShield)
            this._follow(Main.screenShield, ['active-changed', 'locked-changed']);
        for (const window of global.display.list_all_windows())
            this._watchWindow(window);
        this._changed();
    }

    disable() {
        if (this._idle)
            GLib.source_remove(this._idle);
        this._idle = 0;
        for (const [object, id] of this._connections)
            object.disconnect(id);
        this._connections = [];
        for (const window of [...this._windowConnections.keys()])
            this._unwatchWindow(window);
        this._exported.unexport();
        this._exported = null;
        this._last = null;
    }
}

function init() {
    return new DesktopSource();
}
