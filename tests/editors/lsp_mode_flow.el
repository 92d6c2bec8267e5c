;;; lsp_mode_flow.el --- drive lsp-mode through the documented sparkls set-up -*- lexical-binding: t -*-

;; Run as `emacs --batch -q -l lsp_mode_flow.el' (Debian's lsp-mode loads after
;; `package-initialize', as for a user).  sparkls runs as the documented add-on beside
;; `ruff server', registered by the page's "Beside ruff" block.
;; Parameters come from environment variables:
;;   SPARKLS_EMACS_DOCS     Elisp file: the blocks of docs/editors/lsp-mode.md under test
;;   SPARKLS_EMACS_FILE     the Python file to open
;;   SPARKLS_EMACS_FLOW     JSON, each step optional: {"fix_title", "rewrite": STEP, "edit": STEP, "refine",
;;                          "context": LINE, "task": STEP, "follow_ups": RENAME,
;;                          "neighbours": NEIGHBOURS}, RENAME
;;                          {"line", "name", "type", "pick", "other", "closed"}: NAME on
;;                          LINE typed over with TYPE, the action whose title starts with
;;                          PICK picked; OTHER visited (M-x lsp) first, CLOSED not;
;;                          NEIGHBOURS tests/editors/neighbours.py's STEPS, "file" a path
;;   SPARKLS_EMACS_RESULT   where to write the JSON result
;;   SPARKLS_EMACS_TIMEOUT  seconds, the bound on each wait (default 20)
;; The harness only observes (advice) and types; the rest is the docs' and lsp-mode's.

(require 'cl-lib)
(require 'json)
(require 'subr-x)

(defvar flow-result (make-hash-table :test 'equal))
(defvar flow-requests nil "Requests, newest first: (METHOD PARAMS ANSWER), ANSWER nil while pending.")
(defvar flow-messages nil "What reached the echo area, newest first.")
(defvar flow-logs nil "The servers' window/logMessage texts, newest first.")
(defvar flow-prompts nil "The y-or-n-p questions asked, newest first.")
(defvar flow-published nil "Each publishDiagnostics, newest first: (SERVER URI VERSION).")
(defvar flow-env
  (list :docs (getenv "SPARKLS_EMACS_DOCS")
        :file (getenv "SPARKLS_EMACS_FILE")
        :flow (let ((json-object-type 'plist) (json-array-type 'list))
                (json-read-from-string (or (getenv "SPARKLS_EMACS_FLOW") "{}")))
        :result (getenv "SPARKLS_EMACS_RESULT")
        :timeout (string-to-number (or (getenv "SPARKLS_EMACS_TIMEOUT") "20"))))

(defun flow-set (key value) (puthash key value flow-result))
(defun flow-step (name) (flow-set "steps" (vconcat (gethash "steps" flow-result) (list name))))

(defun flow-wait (what predicate)
  "Process events until PREDICATE holds; fail after the timeout."
  (let ((deadline (+ (float-time) (plist-get flow-env :timeout))))
    (while (not (funcall predicate))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.01))))

(defun flow-json (value)
  "VALUE (lsp-mode's hash tables) as something `json-encode' writes back as it came."
  (cond ((hash-table-p value)
         (let (out) (maphash (lambda (k v) (push (cons k (flow-json v)) out)) value)
              (or (nreverse out) (make-hash-table))))
        ((vectorp value) (vconcat (mapcar #'flow-json value)))
        ((eq value :json-false) :json-false)
        (t value)))

(defun flow-observe-async (request method params callback &rest keys)
  "Around `lsp-request-async': remember the request, and its answer when it comes."
  (let ((entry (list method params nil))
        (failure (plist-get keys :error-handler)))
    (push entry flow-requests)
    (apply request method params
           (lambda (result) (setf (nth 2 entry) (list :result result)) (funcall callback result))
           (plist-put (copy-sequence keys) :error-handler
                      (lambda (error) (setf (nth 2 entry) (list :error error))
                        (when failure (funcall failure error)))))))

(defun flow-observe-messages (message format &rest args)
  (let ((text (and format (apply message format args))))
    (when text (push text flow-messages))
    text))

(defun flow-type (&rest keys) (execute-kbd-macro (apply #'vconcat keys)))

(defun flow-goto-line (line) (goto-char (point-min)) (forward-line (1- line)))

(defun flow-select (step)
  "Select what STEP says: a text on a line, or whole lines."
  (flow-goto-line (plist-get step :line))
  (if-let ((text (plist-get step :select)))
      (progn (search-forward text (line-end-position))
             (push-mark (match-beginning 0) t t))
    (push-mark (point) t t)
    (flow-goto-line (1+ (plist-get step :to_line)))))

(defun flow-last (method)
  (cl-find method flow-requests :key #'car :test #'equal))

(defun flow-answer (what entry)
  (flow-wait what (lambda () (nth 2 entry)))
  (when (eq (car (nth 2 entry)) :error)
    (error "%s: error %S" what (flow-json (nth 1 (nth 2 entry)))))
  (plist-get (nth 2 entry) :result))

(defun flow-command (keys instruction)
  "Type KEYS, then INSTRUCTION (if any) and RET; wait for the command's answer."
  (let ((before (length flow-requests)))
    (flow-type (kbd keys) (if instruction (concat instruction "\r") ""))
    (unless (> (length flow-requests) before) (error "%s sent no request" keys))
    (let* ((entry (car flow-requests))
           (pending (null (nth 2 entry))))
      (flow-answer keys entry)
      (list :arguments (flow-json (plist-get (nth 1 entry) :arguments))
            :returned_pending pending
            :result (flow-json (plist-get (nth 2 entry) :result))))))

(defun flow-pick-action (title)
  "M-x lsp-execute-code-action, and pick TITLE from its menu, as the user would."
  (flow-type (kbd "M-x") "lsp-execute-code-action\r" title "\r"))

(defun flow-quick-fix (title)
  "On the linter's line, pick TITLE; the diagnostics lsp-mode sent, and the titles offered."
  (flow-wait "the linter's diagnostic"
             (lambda () (> (hash-table-count (lsp-diagnostics t)) 0)))
  (let ((before (buffer-string)))
    (flow-goto-line 6)
    (flow-pick-action title)
    (let ((request (flow-last "textDocument/codeAction")))
      (flow-set "quickfix" (list :diagnostics (flow-json (plist-get (plist-get (nth 1 request) :context) :diagnostics))
                                 :offered (flow-json (mapcar (lambda (a) (gethash "title" a))
                                                             (plist-get (nth 2 request) :result))))))
    (flow-wait "the quick fix to change the buffer" (lambda () (not (equal before (buffer-string)))))))

(defun flow-rewrite (step)
  "On STEP's lines, pick the rewrite STEP names: the documented action handler runs its
command on sparkls; what was sent (resolve or command) and the command's answer."
  (flow-select step)
  (let ((before (length flow-requests)))
    (flow-pick-action (plist-get step :title))
    (let* ((sent (butlast flow-requests before))
           (command (cl-find "workspace/executeCommand" sent :key #'car :test #'equal)))
      (flow-set "rewrite" (list :methods (vconcat (mapcar #'car sent))
                                :command (and command (plist-get (nth 1 command) :command))
                                :result (and command (flow-json (flow-answer "the rewrite" command))))))
    (deactivate-mark)))

(defun flow-observe-log (_workspace params)
  "Before lsp-mode logs a server's window/logMessage: remember its text."
  (push (gethash "message" params) flow-logs))

(defun flow-observe-questions (prompt)
  "Before `y-or-n-p': remember the question."
  (push prompt flow-prompts))

(defun flow-observe-workspace-edit (edit &optional operation)
  "Before lsp-mode applies a workspace edit: its documents and versions, and its source."
  (flow-set "applied_edits"
            (vconcat (gethash "applied_edits" flow-result)
                     (list (list :operation (and operation (symbol-name operation))
                                 :changes (and (gethash "changes" edit) t)
                                 :documents
                                 (vconcat (mapcar (lambda (change)
                                                    (let ((doc (gethash "textDocument" change)))
                                                      (list :uri (gethash "uri" doc)
                                                            :version (gethash "version" doc))))
                                                  (gethash "documentChanges" edit))))))))

(defun flow-buffer (path)
  "What Emacs holds for PATH: whether a buffer visits it, modified or not, its text."
  (let ((buffer (find-buffer-visiting path)))
    (list :visited (and buffer t)
          :modified (and buffer (buffer-modified-p buffer) t)
          :text (and buffer (with-current-buffer buffer
                              (buffer-substring-no-properties (point-min) (point-max))))
          :disk (with-temp-buffer (insert-file-contents path) (buffer-string)))))

(defun flow-follow-ups (step)
  "Visit STEP's :other with lsp-mode on; once sparkls has indexed the workspace, rename
the function by typing over its name at its def; wait until the code actions list
STEP's :pick, and pick it with `lsp-execute-code-action'."
  (let ((other (plist-get step :other))
        (closed (plist-get step :closed))
        (pick (plist-get step :pick))
        (questions (length flow-prompts)))
    (with-current-buffer (find-file-noselect other) (lsp)) ; what M-x lsp there does
    (flow-goto-line (plist-get step :line))
    (deactivate-mark)
    (search-forward (plist-get step :name) (line-end-position))
    (flow-type (kbd "M-DEL") (plist-get step :type))
    (let ((deadline (+ (float-time) (plist-get flow-env :timeout))))
      (while (not (cl-some (lambda (a) (string-prefix-p pick (gethash "title" a))) (lsp-code-actions-at-point)))
        (when (> (float-time) deadline)
          (error "Timed out waiting for %s among the code actions" pick))
        (accept-process-output nil 0.05)))
    (let ((before (length flow-requests)))
      (flow-pick-action (concat pick "\t")) ; the start of the title, TAB, RET
      (let ((offered (flow-last "textDocument/codeAction"))
            (command (cl-find "workspace/executeCommand" (butlast flow-requests before) :key #'car :test #'equal)))
        (unless command (error "%s ran no command" pick))
        (flow-answer "the follow-ups command" command)
        (flow-set "follow_ups"
                  (list :offered (flow-json (mapcar (lambda (a) (gethash "title" a))
                                                    (plist-get (nth 2 offered) :result)))
                        :arguments (flow-json (plist-get (nth 1 command) :arguments))
                        :result (flow-json (plist-get (nth 2 command) :result))
                        :questions (vconcat (butlast flow-prompts questions))
                        :this (flow-buffer (buffer-file-name))
                        :other (flow-buffer other)
                        :closed (flow-buffer closed)))))))

(defun flow-observe-diagnostics (workspace params)
  "Before lsp-mode takes a server's diagnostics: who published them, for which version."
  (push (list (symbol-name (lsp--workspace-server-id workspace)) (gethash "uri" params) (gethash "version" params))
        flow-published))

(defun flow-ruff-diagnostics (what)
  "Wait until ruff has published the diagnostics of the buffer's text as it is now (its
version), then return them as [LINE MESSAGE], sorted."
  (let ((uri (lsp--buffer-uri)) (version lsp--cur-version))
    (flow-wait (format "ruff's diagnostics %s" what)
               (lambda () (cl-some (lambda (p) (equal p (list "ruff" uri version))) flow-published)))
    (vconcat
     (sort (mapcar (lambda (d) (vector (gethash "line" (gethash "start" (gethash "range" d)))
                                       (car (split-string (gethash "message" d) "\n"))))
                   (cl-remove-if-not (lambda (d) (equal (gethash "source" d) "Ruff")) (lsp--get-buffer-diagnostics)))
           (lambda (a b) (< (aref a 0) (aref b 0)))))))

(defun flow-offered-and-pick (title)
  "The titles of the code actions here, then TITLE picked from the menu; wait for the text to change."
  (let ((offered (vconcat (mapcar (lambda (a) (gethash "title" a)) (lsp-code-actions-at-point))))
        (before (buffer-string)))
    (flow-pick-action title)
    (flow-wait (format "%s to change the buffer" title) (lambda () (not (equal before (buffer-string)))))
    offered))

(defun flow-neighbours (step)
  "STEP's file, beside ruff: Spark's fix of ruff's diagnostic, a Spark edit that moves
lines, ruff's own fix; ruff's diagnostics after each (tests/editors/neighbours.py)."
  (find-file (plist-get step :file))
  (lsp)
  (flow-wait "both servers in the new buffer" (lambda () (= (length (lsp-workspaces)) 2)))
  (let ((diagnostics (list :start (flow-ruff-diagnostics "on opening")))
        texts offered)
    (dolist (name '(:fix :shift :ruff))
      (let ((action (plist-get step name)))
        (deactivate-mark)
        (if (plist-get action :to_line)
            (flow-select (list :line (1+ (plist-get action :line)) :to_line (1+ (plist-get action :to_line))))
          (flow-goto-line (1+ (plist-get action :line))))
        (setq offered (plist-put offered name (flow-offered-and-pick (plist-get action :title))))
        (deactivate-mark)
        (setq texts (plist-put texts name (buffer-substring-no-properties (point-min) (point-max))))
        (setq diagnostics (plist-put diagnostics name (flow-ruff-diagnostics (format "after %s" name))))))
    (flow-set "neighbours" (list :texts texts :diagnostics diagnostics :offered offered))))

(defun flow-stderr-lines ()
  (if-let ((buffer (get-buffer "*sparkls::stderr*")))
      (with-current-buffer buffer
        (cl-count-if (lambda (line) (not (string-empty-p line))) (split-string (buffer-string) "\n")))
    -1))

(defun flow-main ()
  (let ((flow (plist-get flow-env :flow)) started)
    (package-initialize)
    (advice-add 'lsp-request-async :around #'flow-observe-async)
    (advice-add 'message :around #'flow-observe-messages)
    (advice-add 'y-or-n-p :before #'flow-observe-questions)
    (load (plist-get flow-env :docs) nil t)
    (require 'lsp-mode)
    (flow-set "lsp_mode" (locate-library "lsp-mode"))
    (advice-add 'lsp--window-log-message :before #'flow-observe-log)
    (advice-add 'lsp--apply-workspace-edit :before #'flow-observe-workspace-edit)
    (advice-add 'lsp--on-diagnostics :before #'flow-observe-diagnostics)
    (setq lsp-session-file (expand-file-name "lsp-session" (getenv "HOME")))
    (transient-mark-mode 1)
    ;; Emacs 28's own python-flymake (pyflakes) trips over the emoji line in batch mode:
    ;; only the servers' diagnostics here.
    (add-hook 'python-mode-hook (lambda () (remove-hook 'flymake-diagnostic-functions #'python-flymake t)))
    (find-file (plist-get flow-env :file))
    (lsp-workspace-folders-add default-directory) ; what the user's "i" at lsp's prompt does
    (setq started (float-time))
    (lsp)
    (flow-wait "both servers to start"
               (lambda () (and (= (length (lsp-workspaces)) 2)
                               (cl-every (lambda (w) (eq (lsp--workspace-status w) 'initialized))
                                         (lsp-workspaces)))))
    (flow-set "initialize_ms" (* 1000 (- (float-time) started)))
    (flow-set "servers" (vconcat (mapcar (lambda (w) (symbol-name (lsp--client-server-id (lsp--workspace-client w))))
                                         (lsp-workspaces))))
    (flow-wait "a warm fast tier" (lambda () (equal sparkls-status "Spark (local): ready")))
    (flow-set "warm_ms" (* 1000 (- (float-time) started)))
    ;; The follow-ups find uses in unvisited files through the workspace index: wait for
    ;; its log line now, while no request is pending. lsp-mode 8's synchronous
    ;; `lsp-request' throws out of the process filter when its answer arrives, so
    ;; notifications read in the same chunk behind that answer are never handled (a
    ;; lost log line, seen in about half the runs when the index finished during the
    ;; quick fix's resolve). Whatever else a step waits for from a notification is
    ;; waited for the same way, with no synchronous request pending.
    (when (plist-get flow :follow_ups)
      (flow-wait "the workspace index"
                 (lambda () (cl-some (lambda (m) (string-prefix-p "workspace index:" m)) flow-logs))))
    (when-let ((title (plist-get flow :fix_title)))
      (flow-quick-fix title)
      (flow-step "quick fix"))
    (when-let ((step (plist-get flow :rewrite)))
      (flow-rewrite step)
      (flow-step "rewrite"))
    (when-let ((step (plist-get flow :edit)))
      (flow-select step)
      (flow-set "edit" (flow-command "C-c s e" (plist-get step :instruction)))
      (flow-step "edit"))
    (when-let ((instruction (plist-get flow :refine)))
      (flow-set "refine" (flow-command "C-c s r" instruction))
      (flow-step "refine"))
    (save-buffer)
    (when-let ((line (plist-get flow :context)))
      (flow-goto-line line)
      (deactivate-mark)
      (let* ((path (cdr (assoc "path" (plist-get (flow-command "C-c s c" nil) :result))))
             (shown (if (stringp path) (find-buffer-visiting path) (get-buffer "*Spark context*"))))
        (flow-set "context" (list :path path :buffer (and shown (buffer-name shown))
                                  :displayed (and shown (get-buffer-window shown t) t)
                                  :read_only (and shown (buffer-local-value 'buffer-read-only shown))
                                  :text (and shown (with-current-buffer shown (buffer-string))))))
      (flow-step "context view"))
    (when-let ((step (plist-get flow :task)))
      (flow-select step)
      (flow-set "task" (flow-command "C-c s t" (plist-get step :instruction)))
      (flow-step "task"))
    (when-let ((step (plist-get flow :follow_ups)))
      (flow-follow-ups step)
      (flow-step "follow-ups"))
    (when-let ((step (plist-get flow :neighbours)))
      (flow-neighbours step)
      (flow-step "neighbours"))
    (flow-set "status" sparkls-status)
    (flow-set "messages" (vconcat (reverse flow-messages)))
    (flow-set "stderr_lines" (flow-stderr-lines))
    (flow-set "ruff_stderr" (and (get-buffer "*ruff::stderr*") (with-current-buffer "*ruff::stderr*" (buffer-string))))
    (flow-set "warnings" (and (get-buffer "*Warnings*") (with-current-buffer "*Warnings*" (buffer-string))))
    (flow-set "log_errors" (and (get-buffer "*lsp-log*")
                                (with-current-buffer "*lsp-log*"
                                  (vconcat (cl-remove-if-not (lambda (l) (string-match-p "error" l))
                                                             (split-string (buffer-string) "\n"))))))
    (setq lsp-restart 'ignore)
    ;; Both servers shut down as when Emacs exits: what they say then is checked too.
    (dolist (workspace (lsp-workspaces)) (lsp-workspace-shutdown workspace))
    (flow-set "closing_messages" (vconcat (reverse flow-messages)))))

(let ((ok (condition-case err
              (progn (flow-main) t)
            (error (flow-set "error" (error-message-string err))
                   (flow-set "messages" (vconcat (reverse flow-messages)))
                   (flow-set "logs" (vconcat (reverse flow-logs)))
                   (flow-set "stderr_lines" (flow-stderr-lines))
                   nil))))
  (with-temp-file (plist-get flow-env :result)
    (insert (json-encode flow-result)))
  (kill-emacs (if ok 0 1)))

;;; lsp_mode_flow.el ends here
