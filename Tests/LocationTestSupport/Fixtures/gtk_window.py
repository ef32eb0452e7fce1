# A GTK 3 application of the id given, which opens one window and keeps it until killed: a real app's window on a
# Wayland desktop (GDK_BACKEND=wayland), whose GTK application id GNOME Shell reports. The program's name is the id
# too: GTK 3 gives it as the window's xdg-shell app_id, which KWin reports.
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

GLib.set_prgname(sys.argv[1])

app = Gtk.Application(application_id=sys.argv[1])


def activate(application):
    window = Gtk.ApplicationWindow(application=application, title=sys.argv[1])
    window.set_default_size(320, 200)
    window.show_all()
    print("shown", flush=True)


app.connect("activate", activate)
app.run([])
