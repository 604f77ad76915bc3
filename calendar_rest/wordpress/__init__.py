"""(guide to write)"""
