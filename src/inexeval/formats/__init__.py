"""Readers and writers, one module per format; nothing else in inexeval parses files.

XML parsers are configured only in :mod:`inexeval.formats.xmlsafe`; formats are detected from
content in :mod:`inexeval.formats.detect`, which also dispatches to the readers.
"""
