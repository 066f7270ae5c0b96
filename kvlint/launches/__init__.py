"""launches"""
