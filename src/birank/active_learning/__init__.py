"""active_learning"""
