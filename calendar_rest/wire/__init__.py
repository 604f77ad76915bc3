"""The wire format: stored records turned into TEC's JSON representations.

One module per representation; all URL building goes through ``urls.Urls`` so that
the mount point, the public site URL and the language root are honoured everywhere.
"""
