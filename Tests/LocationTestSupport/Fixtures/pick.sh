#!/bin/sh
# dunst's dmenu: dunst writes one line per action of the notifications shown, "#LABEL (SUMMARY) [ID,KEY]", and runs
# the action of the line printed back. This picks the line whose label the test wrote to `want` beside this script's
# copy, as a person would click it, and appends every menu it was given to `menus`, each ended by "---".
dir=$(dirname "$0")
want=$(cat "$dir/want")
lines=$(cat)
printf '%s\n---\n' "$lines" >>"$dir/menus"
printf '%s\n' "$lines" | grep -F -- "#$want (" | head -n 1
