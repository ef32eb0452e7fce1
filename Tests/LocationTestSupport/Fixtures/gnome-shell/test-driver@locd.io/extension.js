/* The tests' hands in GNOME Shell 43, enabled beside locd's own extension: at start it hides the overview (GNOME 40
 * and later open it, and no window gets the focus while it shows), and /io/locd/TestDriver activates or minimises
 * the window whose GTK application id is the key, as a person's click would. */
const { Gio } = imports.gi;
const Main = imports.ui.main;

const IFACE = `<node>
  <interface name="io.locd.TestDriver">
    <method name="Activate"><arg type="s" direction="in" name="key"/><arg type="b" direction="out" name="ok"/></method>
    <method name="Minimize"><arg type="s" direction="in" name="key"/><arg type="b" direction="out" name="ok"/></method>
  </interface>
</node>`;

class TestDriver {
    _find(key) {
        return global.display.list_all_windows().find(w => w.get_gtk_application_id() === key);
    }

    Activate(key) {
        const window = this._find(key);
        if (window)
            Main.activateWindow(window);
        return Boolean(window);
    }

    Minimize(key) {
        const window = this._find(key);
        if (window)
            window.minimize();
        return Boolean(window);
    }

    enable() {
        if (Main.layoutManager._startingUp)
            this._startup = Main.layoutManager.connect('startup-complete', () => Main.overview.hide());
        else
            Main.overview.hide();
        this._exported = Gio.DBusExportedObject.wrapJSObject(IFACE, this);
        this._exported.export(Gio.DBus.session, '/io/locd/TestDriver');
    }

    disable() {
        if (this._startup)
            Main.layoutManager.disconnect(this._startup);
        this._exported.unexport();
    }
}

function init() {
    return new TestDriver();
}
