#!/bin/sh
# dunst's dmenu: dunst writes one line per action of the notifications shown, "#LABEL (SUMMARY) [ID,KEY]", and runs
# the action of the line printed back. This picks the line whose label the test wrote to `want` beside this script's
# copy, as a person would click it, and appends every menu it was given to `menus`, each ended by "---". With a file
# `menu` beside it, which names a real menu program (dmenu), the lines go to that program instead, drawn on the display
# for a person (or the test's keyboard) to answer.
dir=$(dirname "$0")
want=$(cat "$dir/want")
lines=$(cat)
printf '%s\n---\n' "$lines" >>"$dir/menus"
if [ -s "$dir/menu" ]; then
    printf '%s\n' "$lines" | sh -c "$(cat "$dir/menu")"
    exit
fi
printf '%s\n' "$lines" | grep -F -- "#$want (" | head -n 1
