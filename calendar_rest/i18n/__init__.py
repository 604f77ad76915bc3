"""Every human-readable text in each language: the error codes' messages and the gettext
catalogs that translate them.

Texts are written in English in the code and marked with ``N_``; the catalogs under
``locale/`` (English source, French translation) are read directly with Babel. Low in
the layers, it imports only ``settings`` (the languages); ``errors``, ``schemas``,
``wordpress``, ``routes``, ``describe``, ``resources``, ``repository``, the edge and the
CLI use it.

- ``catalogs`` — the catalogs: ``translator(language)``, and the CLI's
  ``environment_language``.
- ``messages`` — the registry of error codes and their texts (TEC's ``Messages.php``),
  and ``N_``.
- ``locale/`` — the ``.pot`` template and the ``.po`` catalogs per language (data, not
  code).
"""
