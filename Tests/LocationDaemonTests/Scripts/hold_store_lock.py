"""Holds an exclusive lock on a locd store until stdin closes, so that locd's writes fail.

Prints "locked" once the lock is held. Usage: hold_store_lock.py PATH_TO_locd.sqlite
"""
import sqlite3
import sys

connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.read()
connection.execute("ROLLBACK")
