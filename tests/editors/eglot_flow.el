;;; eglot_flow.el --- drive eglot through the documented sparkls set-up -*- lexical-binding: t -*-

;; Run as `emacs --batch -q -l eglot_flow.el' (not -Q: Debian's site start-up puts
;; the elpa-eglot package on the load path, as it does for a user). Parameters come
;; from environment variables:
;;   SPARKLS_EMACS_DOCS     Elisp file: the blocks of docs/editors/emacs.md under test
;;   SPARKLS_EMACS_FILE     the Python file to open
;;   SPARKLS_EMACS_FLOW     JSON: {"quickfix": {"diagnostic"}, "edits": [STEP...], "task": STEP}
;;                          where STEP is {"line", "select" | "to_line", "instruction"}
;;   SPARKLS_EMACS_RESULT   where to write the JSON result
;;   SPARKLS_EMACS_TIMEOUT  seconds, the bound on each wait (default 20)
;; The harness only observes (advice) and types: the set-up, the commands, eglot's
;; code actions and its workspace/applyEdit handler are the docs' and eglot's own.
;; Emacs exits non-zero on failure.

(require 'cl-lib)
(require 'json)
(require 'subr-x)

(defvar flow-result (make-hash-table :test 'equal))
(defvar flow-requests nil "Client requests, newest first: (METHOD PARAMS RESULT).")
(defvar flow-async nil "Asynchronous client requests, newest first: (METHOD PARAMS ANSWER).")
(defvar flow-env
  (list :docs (getenv "SPARKLS_EMACS_DOCS")
        :file (getenv "SPARKLS_EMACS_FILE")
        :flow (let ((json-object-type 'plist) (json-array-type 'list))
                (json-read-from-string (or (getenv "SPARKLS_EMACS_FLOW") "{}")))
        :result (getenv "SPARKLS_EMACS_RESULT")
        :timeout (string-to-number (or (getenv "SPARKLS_EMACS_TIMEOUT") "20"))))

(defun flow-set (key value) (puthash key value flow-result))

(defun flow-wait (what predicate)
  "Process events until PREDICATE holds; fail after the timeout."
  (let ((deadline (+ (float-time) (plist-get flow-env :timeout))))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.01))))

(defun flow-observe-requests (request connection method params &rest args)
  "Around `jsonrpc-request': remember every request and its result."
  (let ((entry (list method params nil)))
    (push entry flow-requests)
    (let ((result (apply request connection method params args)))
      (setf (nth 2 entry) result)
      result)))

(defun flow-observe-async (request connection method params &rest keys)
  "Around `jsonrpc-async-request': remember the request, and its answer when it comes."
  (let ((entry (list method params nil nil))
        (success (plist-get keys :success-fn))
        (failure (plist-get keys :error-fn)))
    (push entry flow-async)
    (apply request connection method params
           (append (list :success-fn (lambda (result)
                                       (setf (nth 2 entry) (list :result result))
                                       (when success (funcall success result)))
                         :error-fn (lambda (error)
                                     (setf (nth 2 entry) (list :error error))
                                     (when failure (funcall failure error))))
                   keys))))

(defun flow-observe-actions (actions &rest _)
  "Before eglot executes a code action: the titles it had to choose from."
  (flow-set "offered" (vconcat (mapcar (lambda (a) (plist-get a :title)) actions))))

(defun flow-type (&rest keys)
  "Type KEYS (key descriptions and literal strings) through the command loop."
  (execute-kbd-macro (apply #'vconcat keys)))

(defun flow-goto-line (line)
  (goto-char (point-min))
  (forward-line (1- line)))

(defun flow-quick-fix (server)
  "Publish a linter's diagnostic through the connection, as a multiplexer would, and fix it."
  (let* ((d (plist-get (plist-get flow-env :flow) :quickfix))
         (diagnostic (plist-get d :diagnostic))
         (line (plist-get diagnostic :line))
         (before (buffer-string)))
    (eglot-handle-notification
     server 'textDocument/publishDiagnostics
     :uri (plist-get (eglot--TextDocumentIdentifier) :uri)
     :diagnostics
     (vector (list :range (list :start (list :line line :character (plist-get diagnostic :col))
                                :end (list :line line :character (plist-get diagnostic :end_col)))
                   :severity 1 :source (plist-get diagnostic :source)
                   :message (plist-get diagnostic :message))))
    (flow-wait "flymake to hold the diagnostic"
               (lambda () (flymake-diagnostics (point-min) (point-max))))
    (flow-goto-line (1+ line))
    (eglot-code-actions (line-beginning-position) (line-end-position) "quickfix" t)
    (flow-wait "the quick fix to change the buffer" (lambda () (not (equal before (buffer-string)))))))

(defun flow-select (step)
  "Select what STEP says: a text on a line, or whole lines."
  (flow-goto-line (plist-get step :line))
  (if-let ((text (plist-get step :select)))
      (progn (search-forward text (line-end-position))
             (push-mark (match-beginning 0) t t))
    (push-mark (point) t t)
    (flow-goto-line (1+ (plist-get step :to_line)))))

(defun flow-edit (step)
  "Select what STEP says, then C-c s e and the instruction, as the user would."
  (flow-select step)
  (let ((before (length flow-requests)))
    (flow-type (kbd "C-c s e") (plist-get step :instruction) (kbd "RET"))
    (unless (> (length flow-requests) before)
      (error "C-c s e sent no request"))))

(defun flow-task (step)
  "C-c s t on STEP's selection; only what it sends is checked (the server side comes later)."
  (flow-select step)
  (flow-type (kbd "C-c s t") (plist-get step :instruction) (kbd "RET"))
  (let ((entry (car flow-async)))
    (unless (and entry (eq (car entry) :workspace/executeCommand))
      (error "C-c s t sent no request"))
    (flow-wait "sparkls.task to answer" (lambda () (nth 2 entry)))
    (flow-set "task" (append (list :command (plist-get (nth 1 entry) :command)
                                   :arguments (plist-get (nth 1 entry) :arguments))
                             (nth 2 entry)))))

(defun flow-commands ()
  "The workspace/executeCommand requests, oldest first, for the result."
  (vconcat
   (cl-loop for (method params result) in (reverse flow-requests)
            when (eq method :workspace/executeCommand)
            collect (list :command (plist-get params :command)
                          :arguments (plist-get params :arguments)
                          :result result))))

(defun flow-main ()
  (let ((started nil) server)
    (advice-add 'jsonrpc-request :around #'flow-observe-requests)
    (advice-add 'jsonrpc-async-request :around #'flow-observe-async)
    (advice-add 'eglot--read-execute-code-action :before #'flow-observe-actions)
    (load (plist-get flow-env :docs) nil t)
    (require 'eglot)
    (flow-set "eglot" (locate-library "eglot"))
    (flow-set "emacs" emacs-version)
    (transient-mark-mode 1)
    (setq eglot-sync-connect t)
    (find-file (plist-get flow-env :file))
    (setq started (float-time))
    (apply #'eglot (eglot--guess-contact))
    (setq server (eglot-current-server))
    (unless server (error "eglot did not connect"))
    (flow-set "initialize_ms" (* 1000 (- (float-time) started)))
    (flow-wait "a warm fast tier" (lambda () (equal sparkls-status "Spark (local): ready")))
    (flow-set "warm_ms" (* 1000 (- (float-time) started)))
    (flymake-start)
    (flow-quick-fix server)
    (dolist (step (plist-get (plist-get flow-env :flow) :edits))
      (flow-edit step))
    (save-buffer)
    (flow-set "status" sparkls-status)
    (when-let ((step (plist-get (plist-get flow-env :flow) :task)))
      (flow-task step))
    (flow-set "commands" (flow-commands))
    (flow-set "methods" (vconcat (mapcar (lambda (r) (symbol-name (car r))) (reverse flow-requests))))
    (eglot-shutdown server)))

(let ((ok (condition-case err
              (progn (flow-main) t)
            (error (flow-set "error" (error-message-string err))
                   (flow-set "commands" (flow-commands))
                   nil))))
  (with-temp-file (plist-get flow-env :result)
    (insert (json-encode flow-result)))
  (kill-emacs (if ok 0 1)))

;;; eglot_flow.el ends here
