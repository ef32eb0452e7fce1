#!/bin/sh
# A stand-in for the desktop's terminal (locd-agent --terminal-command): records the command it was asked to run.
printf '%s\n' "$*" >>"$(dirname "$0")/terminal"
