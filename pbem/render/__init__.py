"""Rendering with rich: tables, the hex map, SVG.  Only cli and render import rich."""
