"""WordPress's conventions, reproduced where clients can see them: how PHP reads query
strings, how WordPress formats text and builds URLs, how TEC keeps costs, the
taxonomies' names, application passwords.

Below ``schemas``, it imports only ``i18n`` and ``settings``; the rules, the reads, the
writes, the wire, the descriptions, the edge and the importers use it.

- ``php_params`` — query strings and forms read as PHP and WordPress read them
  (``a[]=``, ``a[b]=``).
- ``text`` — ``wpautop``, ``sanitize_title`` slugs and the other string handling TEC's
  output relies on.
- ``urls`` — URLs in bodies: permalinks, REST links, TEC's global IDs (``Urls``).
- ``cost`` — TEC's ``cost`` and ``cost_details`` fields.
- ``taxonomies`` — the two taxonomies, each named once.
- ``passwords`` — application passwords: generated, stored salted, compared.
"""
